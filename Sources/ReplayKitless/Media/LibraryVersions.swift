import CFFmpeg
import Foundation

/// The versions of the libraries an output's bytes depend on (what `fxreplay --version` lists): the
/// same input and options give the same bytes only with the same FFmpeg and encoder libraries, so a
/// program that keeps golden outputs records these with them.
public enum LibraryVersions {
    /// One line per library: FFmpeg's release and its libraries' versions, then the encoders' (x264,
    /// x265, libvpx) that this process's libavcodec has.
    public static var lines: [String] {
        func version(_ packed: UInt32) -> String { "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)" }
        var lines = ["FFmpeg \(String(cString: av_version_info()))",
                     "libavutil \(version(avutil_version())), libavcodec \(version(avcodec_version())), "
                         + "libavformat \(version(avformat_version())), libswscale \(version(swscale_version())), "
                         + "libswresample \(version(swresample_version()))"]
        let loaded = loadedLibraries
        func file(_ stem: String) -> String? { loaded.first { $0.hasPrefix(stem + ".so") } }
        if avcodec_find_encoder_by_name("libx264") != nil {
            // x264 exports no version string; its ABI ("core") number is its library's soname.
            let core = file("libx264").flatMap { $0.split(separator: ".").last }.map { "x264 core \($0)" } ?? "x264 (version unknown)"
            lines.append(core + (file("libx264").map { " (\($0))" } ?? ""))
        }
        if avcodec_find_encoder_by_name("libx265") != nil {
            let text = symbol("x265_version_str").map { $0.load(as: UnsafePointer<CChar>.self) }.map { String(cString: $0) }
            lines.append("x265 \(text ?? "(version unknown)")" + (file("libx265").map { " (\($0))" } ?? ""))
        }
        if avcodec_find_encoder_by_name("libvpx-vp9") != nil || avcodec_find_encoder_by_name("libvpx") != nil {
            typealias VersionFunction = @convention(c) () -> UnsafePointer<CChar>?
            let text = symbol("vpx_codec_version_str").map { unsafeBitCast($0, to: VersionFunction.self) }?().map { String(cString: $0) }
            lines.append("libvpx \(text ?? "(version unknown)")" + (file("libvpx").map { " (\($0))" } ?? ""))
        }
        return lines
    }

    /// A symbol of a library the process has loaded (libavcodec's encoders), without linking it.
    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(nil, name) }

    /// File names of the shared libraries mapped into the process, from /proc/self/maps (Linux).
    private static var loadedLibraries: [String] {
        // Read to the end: procfs files report a size of 0, so a read by size gets nothing.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() else { return [] }
        let maps = String(decoding: data, as: UTF8.self)
        var names: [String] = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let name = URL(fileURLWithPath: String(line[slash...])).lastPathComponent
            if name.contains(".so"), !names.contains(name) { names.append(name) }
        }
        return names
    }
}
