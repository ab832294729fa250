import Foundation

/// The rows of a placement track that can be drawn (visible, with coordinates), by frame number.
struct DrawableRows: Sendable {
    private let byFrame: [Int: [PlacementRow]]

    init(_ track: PlacementTrack) {
        var byFrame: [Int: [PlacementRow]] = [:]
        for row in track.rows where row.visible && row.x != nil && row.y != nil { byFrame[row.frame, default: []].append(row) }
        self.byFrame = byFrame
    }

    /// The rows of frame `frame`.
    subscript(frame: Int) -> [PlacementRow] { byFrame[frame] ?? [] }

    /// Per annotation id, the row nearest time `t` within `tolerance` seconds (the earlier on ties):
    /// what `qa compare --match time` pairs with a frame of the other track.
    func nearest(to t: Double, tolerance: Double) -> [PlacementRow] {
        var best: [String: PlacementRow] = [:]
        for rows in byFrame.values {
            for row in rows where abs(row.t - t) <= tolerance {
                if let current = best[row.id], (abs(current.t - t), current.t) <= (abs(row.t - t), row.t) { continue }
                best[row.id] = row
            }
        }
        return best.values.sorted { $0.id < $1.id }
    }
}

/// `fxreplay qa overlay`: draws the placements of one or more tracks on the frames they belong to,
/// a ring and cross per visible row, one marker colour per track (``color(ofTrack:)``). Pass it to
/// ``Renderer`` as an extra effect. Rows are looked up by the frame's presentation index;
/// coordinates are the track's own (formats.md §7: display orientation), so the render must keep
/// the input's size.
public final class PlacementOverlay: FrameEffect {
    /// The effect's name in ``RenderReport/effects``.
    public let name = "overlay"
    private let tracks: [DrawableRows]
    private let colors: [RGBAColor]
    private var markers: [Int]

    /// An overlay of `tracks` (their visible rows with coordinates), drawn in `colors[i]` for track
    /// `i`; tracks without one get ``color(ofTrack:)``.
    public init(tracks: [PlacementTrack], colors: [RGBAColor] = []) {
        self.tracks = tracks.map(DrawableRows.init)
        self.colors = tracks.indices.map { $0 < colors.count ? colors[$0] : Self.color(ofTrack: $0) }
        markers = Array(repeating: 0, count: tracks.count)
    }

    /// The marker colour of track `index` when none is given: red, cyan, yellow, green, purple,
    /// then again. QA report pictures draw track A and B in those of 0 and 1.
    public static func color(ofTrack index: Int) -> RGBAColor { MarkerStyle.trackColor(index) }

    /// The name of ``color(ofTrack:)`` ("red", "cyan", …), for messages.
    public static func colorName(ofTrack index: Int) -> String { MarkerStyle.trackColors[index % MarkerStyle.trackColors.count].name }

    /// Draws every track's markers of the frame at `time` into `image`.
    public func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
        for (index, rows) in tracks.enumerated() {
            let style = MarkerStyle.sized(for: image.height, color: colors[index])
            for row in rows[time.index] {
                guard let x = row.x, let y = row.y else { continue }
                style.draw(at: x, y, in: image)
                markers[index] += 1
            }
        }
    }

    /// Markers drawn per track (`track 1 markers`, `track 2 markers`, …).
    public func reportLines() -> [String: Int] {
        Dictionary(uniqueKeysWithValues: markers.enumerated().map { ("track \($0.offset + 1) markers", $0.element) })
    }
}

/// A frame of a video to picture in a QA report, with its caption and the PNG file to write.
package struct ThumbnailRequest: Sendable, Equatable {
    /// Presentation index in the video (and frame number of track A).
    package var frame: Int
    /// Track A's time of that frame, seconds; pairs rows of B under time matching.
    package var t: Double
    package var label: String
    package var path: String
    /// The annotation the picture is about: the picture is then a zoomed crop around its placements
    /// (``WorstFrameCrop``) rather than the whole frame.
    package var id: String?
    /// The annotation's colour in the report's plot, for the picture's caption swatch.
    package var accent: RGBAColor?

    package init(frame: Int, t: Double, label: String, path: String, id: String? = nil, accent: RGBAColor? = nil) {
        self.frame = frame
        self.t = t
        self.label = label
        self.path = path
        self.id = id
        self.accent = accent
    }
}

/// Worst-frame pictures for `fxreplay qa compare --report … --video …`: the frames decoded and turned
/// upright, both tracks' placements drawn as markers (A ``MarkerStyle/trackColor(_:)`` 0, B 1): a
/// zoomed crop around the request's annotation (``WorstFrameCrop``), or the whole frame scaled down
/// when the request names none; written as PNG.
package enum PlacementThumbnails {
    /// Hands one PNG per request to `save` with the request's path, or without `save` keeps them in
    /// the returned report entries instead (a self-contained page); returns the entries.
    /// - Parameters:
    ///   - timeTolerance: pair B's rows by nearest time within this many seconds instead of by frame.
    ///   - width: the whole-frame pictures' width (never enlarged).
    ///   - legend: the names of A and B under the crops.
    package static func write(video: String, requests: [ThumbnailRequest], a: PlacementTrack, b: PlacementTrack,
                             timeTolerance: Double? = nil, width: Int = 320, legend: [String] = ["A", "B"],
                             save: ((_ png: Data, _ path: FilePath) throws(ReplayError) -> Void)?) throws(ReplayError) -> [QAThumbnail] {
        guard let last = requests.map(\.frame).max() else { return [] }
        let rowsA = DrawableRows(a), rowsB = DrawableRows(b)
        let byFrame = Dictionary(grouping: requests, by: \.frame)
        let reader = try VideoFrameReader(url: video)
        let upright = try UprightPictures(stream: reader.stream, convertOtherFormats: true)
        var written: [QAThumbnail] = []
        var index = 0
        while index <= last, let frame = try reader.next() {
            defer { index += 1 }
            guard let wanted = byFrame[index] else { continue }
            let picture = try upright.picture(frame, index: index)
            var full: RGBPicture?
            for request in wanted {
                let rowsOfB = timeTolerance.map { rowsB.nearest(to: request.t, tolerance: $0) } ?? rowsB[index]
                let placements = [rowsA[index], rowsOfB].enumerated().flatMap { track, rows in
                    rows.compactMap { row in row.x.flatMap { x in row.y.map { WorstFrameCrop.Placement(track: track, id: row.id, x: x, y: $0) } } }
                }
                let png: RGBPicture
                if let id = request.id, placements.contains(where: { $0.id == id }) {
                    if full == nil { full = try ImageWriter.rgb(picture) }
                    png = WorstFrameCrop.picture(frame: full!, placements: placements, focus: id, caption: request.label,
                                                 accent: request.accent ?? .reportWhite, legend: legend)
                } else {
                    png = try scaledDown(picture, width: width, placements: placements)
                }
                let data = try ImageWriter.png(png)
                try save?(data, FilePath(request.path))
                written.append(QAThumbnail(label: request.label, path: FilePath(request.path), inline: save == nil ? data : nil))
            }
        }
        guard index > last else {
            throw .badInput("\(video): the video has \(index) frames, but the tracks refer to frame \(last)")
        }
        let order = Dictionary(uniqueKeysWithValues: requests.enumerated().map { ($0.element.path, $0.offset) })
        return written.sorted { (order[$0.path.string] ?? 0) < (order[$1.path.string] ?? 0) }
    }

    /// The whole frame at most `width` pixels wide with every placement's marker (about 9 px radius).
    private static func scaledDown(_ picture: YUVImage, width: Int, placements: [WorstFrameCrop.Placement]) throws(ReplayError) -> RGBPicture {
        var scaled = try ImageWriter.rgb(picture, width: min(width, picture.width))
        let scale = Double(scaled.width) / Double(picture.width)
        for placement in placements {
            WorstFrameCrop.marker(placement.track).draw(at: placement.x * scale, placement.y * scale, in: &scaled)
        }
        return scaled
    }
}

extension YUVImage {
    /// Same size, subsampling and colour space (a buffer that can take a copy of `other`).
    func matches(_ other: YUVImage) -> Bool {
        width == other.width && height == other.height && subsampling == other.subsampling && colorSpace == other.colorSpace
    }
}
