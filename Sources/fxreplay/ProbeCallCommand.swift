import Foundation
import ReplayKitless

extension Probe {
    /// `probe CALL`: the participants, each file on the call's clock, and the timeline at a glance.
    func probeCall() throws {
        let opened = try OpenedCall.open(PathArgument.input(input))
        let result = try CallProbeResult(call: opened.call)
        if json {
            FileHandle.standardOutput.write(try prettyJSON(result))
            return
        }
        var header = "\(result.source): call, \(result.streams.count) stream\(result.streams.count == 1 ? "" : "s"), "
            + String(format: "%.3f s", result.duration)
        if let epoch = result.epoch {
            let date = ISO8601DateFormatter.string(from: Date(timeIntervalSince1970: epoch), timeZone: TimeZone(identifier: "UTC")!,
                                                   formatOptions: [.withInternetDateTime, .withFractionalSeconds])
            header += ", epoch \(epoch) (\(date))"
        }
        printLine(header)
        printLine("  manifest: \(result.manifest)")
        for stream in result.streams {
            let type = stream.videoType.map { " (\($0))" } ?? ""
            printLine("  \(stream.id) \"\(stream.name)\"\(type): " + String(format: "%.3f–%.3f s", stream.start, stream.stop))
            for track in stream.tracks {
                printLine("    \(track.file): " + String(format: "start %.3f s, stop %.3f s, duration %.3f s; media %.6f–%.6f s",
                                                    track.start, track.stop, track.duration, track.mediaStart, track.mediaEnd))
                printLine("      " + Self.describe(track.media))
            }
        }
        printLine(String(format: "timeline (0–%.1f s):", result.duration))
        for line in CallTimelineChart.lines(result) { printLine("  " + line) }
        printLine("  (\(CallTimelineChart.video) picture, \(CallTimelineChart.audio) sound only)")
    }

    /// One file's codecs, picture sizes (with the display matrix's turn and mirroring, as `probe
    /// FILE` gives them) and sample rates in a line.
    static func describe(_ media: ProbeResult) -> String {
        var parts: [String] = []
        for stream in media.streams where stream.kind == .video || stream.kind == .audio {
            if stream.kind == .video {
                let sizes = stream.index == media.videoStream && !media.resolutions.isEmpty
                    ? media.resolutions.joined(separator: " → ") : "\(stream.width ?? 0)x\(stream.height ?? 0)"
                let turn = stream.index == media.videoStream && media.rotation % 360 != 0 ? ", rotation \(media.rotation)° clockwise" : ""
                let mirror = stream.index == media.videoStream && media.mirrored ? ", mirrored" : ""
                parts.append("video \(stream.codec) \(sizes)\(media.resolutions.count > 1 ? " (resolution changes)" : "")\(turn)\(mirror)")
            } else {
                parts.append("audio \(stream.codec) \(stream.sampleRate ?? 0) Hz \(stream.channels ?? 0) ch")
            }
        }
        return parts.isEmpty ? "no audio or video" : parts.joined(separator: ", ")
    }
}

/// The call at a glance: one line per stream, a bar of `width` columns over the call's duration.
enum CallTimelineChart {
    /// A column where the stream shows a picture.
    static let video: Character = "■"
    /// A column where it is heard and not seen.
    static let audio: Character = "▒"

    /// Column `c` covers call times `[c·d/width, (c+1)·d/width)`; it is marked when a track is
    /// active for any part of it: ``video`` when one with a picture is, else ``audio``.
    static func bar(for stream: CallProbeResult.Stream, duration: Double, width: Int) -> String {
        String((0..<width).map { column -> Character in
            let from = Double(column) * duration / Double(width), to = Double(column + 1) * duration / Double(width)
            let active = stream.tracks.filter { $0.start < to && $0.stop > from }
            if active.contains(where: \.hasVideo) { return video }
            if active.contains(where: \.hasAudio) { return audio }
            return " "
        })
    }

    /// The chart's lines: names padded to one width, the bar, the active span and what the stream carries.
    static func lines(_ result: CallProbeResult, width: Int = 40) -> [String] {
        let names = result.streams.map { TerminalText.escaped($0.name == $0.id ? $0.id : "\($0.name) (\($0.id))") }
        let nameWidth = min(names.map(\.count).max() ?? 0, 32)
        return zip(result.streams, names).map { stream, name in
            let shown = name.count > nameWidth ? String(name.prefix(nameWidth - 1)) + "…" : name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            let carries = stream.hasVideo ? (stream.hasAudio ? "video+audio" : "video") : "audio only"
            let span = "\(TextNumber.fixed(stream.start, decimals: 1))–\(TextNumber.fixed(stream.stop, decimals: 1)) s"
            return "\(shown) |\(bar(for: stream, duration: result.duration, width: width))| \(span.padding(toLength: 14, withPad: " ", startingAt: 0)) \(carries)"
        }
    }
}
