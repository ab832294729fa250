import CFFmpeg
import Foundation

/// A contact sheet of a render (`render --preview FILE.png`): a few frames spread evenly over the
/// video, downscaled, in a grid, each with its index and time in a strip below it (never over the
/// picture, where it could hide a participant's name or an annotation), for people without a
/// video player.
///
/// As an effect it sees every frame after the others (so the sheet shows the final picture) but
/// copies only a few: the frames shown at the points of a time grid starting at the first frame it
/// sees (`compose` hands it frames from the first that shows someone),
/// whose spacing doubles (dropping every other kept thumbnail) whenever more than `8·count` have
/// piled up. That needs no duration up front, keeps at most `8·count + 1` small thumbnails, and
/// leaves them evenly spread from the first frame to within one spacing (under 1/24 of the video)
/// of the last. The sheet shows those nearest `count` evenly spaced times between the first and
/// the last kept.
public final class ContactSheet: FrameEffect {
    /// The name its counts go under in a report.
    public let name = "preview"
    private let output: AtomicOutput
    private let count: Int
    private let columns: Int
    private let cellWidth: Int
    private let fontPath: String
    /// Kept thumbnails, oldest first: the grid point each was taken for and the frame it shows.
    private var kept: [(point: Int, time: FrameTime, picture: Frame)] = []
    /// Seconds between grid points (the first frame's duration to begin with), where the grid
    /// starts (the first frame's time), and the next point to fill.
    private var spacing: Double?
    private var origin = 0.0
    private var nextPoint = 0
    /// The frames' colour space (the same for the whole render).
    private var colorSpace = ColorSpace.bt709Limited
    private let copy: Frame
    private let scaler = Scaler()

    /// Gap between cells and around the grid, pixels (even, for 4:2:0).
    static let gap = 4
    /// Size of the text under each thumbnail, pixels per em.
    static let labelSize = 13.0

    /// A sheet to be written into `output` (reserved, typically from the render's ``OutputGroup``,
    /// which moves it into place) by ``write()``.
    /// - Parameters:
    ///   - count: frames on the sheet; `columns` per row; `cellWidth` pixels wide each (at most the frame's width).
    ///   - font: the labels' font (`nil`: the DejaVu Sans fxreplay is installed with, or the system's).
    public init(output: AtomicOutput, count: Int = 6, columns: Int = 3, cellWidth: Int = 320,
                font: FilePath? = nil) throws(ReplayError) {
        guard count >= 2, columns >= 1, cellWidth >= 16 else {
            throw .usage("a contact sheet needs 2 or more frames, 1 or more columns and cells 16 or more pixels wide")
        }
        copy = try Frame()
        self.output = output
        self.count = count
        self.columns = columns
        self.cellWidth = cellWidth
        fontPath = font?.string ?? AnnotationRenderer.Options.defaultFontPath
    }

    /// Keeps a thumbnail of `image` when `time` reaches the next point of the sheet's time grid.
    public func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
        if spacing == nil { origin = time.seconds }
        let spacing = self.spacing ?? max(time.duration, 1e-3)
        self.spacing = spacing
        // This frame is shown from its time to its end: does that span hold the next grid point?
        let end = time.seconds - origin + time.duration
        guard Double(nextPoint) * spacing < end else { return }
        colorSpace = image.colorSpace
        kept.append((nextPoint, time, try thumbnail(of: image)))
        while Double(nextPoint) * spacing < end { nextPoint += 1 }
        guard kept.count > 8 * count else { return }
        kept = kept.filter { $0.point.isMultiple(of: 2) }.map { ($0.point / 2, $0.time, $0.picture) }
        self.spacing = 2 * spacing
        nextPoint = (nextPoint + 1) / 2
    }

    /// How many frames the sheet shows.
    public func reportLines() -> [String: Int] { ["frames": chosen.count] }

    /// The kept thumbnails that go on the sheet: those nearest `count` evenly spaced times from the
    /// first kept to the last (all of them when there are no more than `count`).
    private var chosen: [(point: Int, time: FrameTime, picture: Frame)] {
        guard kept.count > count, let first = kept.first?.time.seconds, let last = kept.last?.time.seconds else { return kept }
        return (0..<count).map { k in
            let target = first + Double(k) * (last - first) / Double(count - 1)
            return kept.min { abs($0.time.seconds - target) < abs($1.time.seconds - target) } ?? kept[0]
        }
    }

    /// Writes the sheet as PNG into its output once the render has finished; it stays out of
    /// sight until that output is committed.
    public func write() throws(ReplayError) {
        let cells = chosen
        guard let first = cells.first?.picture else {
            throw .processing("\(output.finalPath): no frames to put on the contact sheet")
        }
        let rows = (cells.count + columns - 1) / columns
        // Each thumbnail has a strip below it as tall as its label's plate (on even pixels).
        let labeller = (try? GlyphCache(path: fontPath)).map { LabelRenderer(glyphs: $0, colorSpace: colorSpace) }
        let strip = labeller?.placement(size: Self.labelSize, anchorX: 0, anchorY: 0, clearance: 0).map { Int($0.plateHeight + 1) & ~1 } ?? 0
        let gap = Self.gap, cellHeight = first.height + strip
        let sheet = PlanarBuffer(width: columns * first.width + (columns + 1) * gap, height: rows * cellHeight + (rows + 1) * gap,
                                 colorSpace: colorSpace)
        sheet.image.fill(colorSpace.yuv(red: 32, green: 32, blue: 34))
        // Without a usable font, no labels.
        let labels = RenderLayer(width: sheet.image.width, height: sheet.image.height)
        for (index, cell) in cells.enumerated() {
            guard let picture = cell.picture.yuvImage else { continue }   // always 4:2:0
            let x = gap + (index % columns) * (first.width + gap), y = gap + (index / columns) * (cellHeight + gap)
            picture.luma.paste(into: sheet.image.luma, x: x, y: y)
            picture.cb.paste(into: sheet.image.cb, x: x / 2, y: y / 2)
            picture.cr.paste(into: sheet.image.cr, x: x / 2, y: y / 2)
            labeller?.draw("#\(cell.time.index)  " + String(format: "%.3f s", cell.time.seconds), size: Self.labelSize,
                      anchorX: Double(x), anchorY: Double(y + cellHeight), clearance: 0, into: labels)
        }
        LayerCompositor.composite(labels, opacity: 1, into: sheet.image, occlusion: nil)
        let png = try ImageWriter.png(try ImageWriter.rgb(sheet.image))
        try output.write(png)
    }

    /// A downscaled copy of `image` (bicubic).
    private func thumbnail(of image: YUVImage) throws(ReplayError) -> Frame {
        let width = min(cellWidth, image.width) & ~1
        let height = max(2, Int(clamping: Double(image.height) * Double(width) / Double(image.width), rounding: .toNearestOrAwayFromZero, to: 0...InputLimits.pictureSide) & ~1)
        let picture: Frame
        do {
            try copy.allocate(width: image.width, height: image.height, format: AV_PIX_FMT_YUV420P)
            picture = try Frame(width: width, height: height, format: AV_PIX_FMT_YUV420P)
        } catch { throw .processing("contact sheet: \(error)") }
        guard var planes = copy.yuvImage, picture.yuvImage != nil, image.subsampling == .yuv420 else {
            throw .processing("contact sheet: unexpected picture format")
        }
        planes.colorSpace = image.colorSpace
        planes.copy(from: image)
        try scaler.convert(copy, into: picture)
        return picture
    }
}
