import ArgumentParser
import ReplayKitless

/// The command line's flag for each option property the library's errors name
/// (``ReplayError/options``), so that a person at the command line reads the flags they typed.
enum OptionFlags {
    static let flags: [String: String] = [
        "overwrite": "--overwrite",
        "RenderOptions.overwrite": "--overwrite",
        "ComposeOptions.overwrite": "--overwrite",
        "RenderOptions.keepRotation": "--keep-rotation",
        "RenderOptions.from": "--from",
        "RenderOptions.to": "--to",
        "ComposeOptions.from": "--from",
        "ComposeOptions.to": "--to",
        "ComposeOptions.fps": "--fps",
        "RenderOptions.embedPoses": "--embed-poses",
        "PoseEmbedder.embedByCopy": "--copy",
        "RenderOptions.poses": "--poses FILE or --poses-from-sei",
        "RenderOptions.encoder.codec": "--codec",
        "RenderOptions.audio.codec": "--audio-codec",
        "RenderOptions.annotations": "--annotations",
        "AnnotationSettings.occludeWithMask": "--occlude-with-mask",
        "BackgroundSettings.mask": "--mask",
        "BackgroundSettings.background": "--background",
        "BackgroundSettings.feather": "--feather",
        "BackgroundSettings.expand": "--mask-expand",
        "BackgroundSettings.shrink": "--mask-shrink",
        "BackgroundSettings.smoothFrames": "--mask-smooth",
        "BackgroundSettings.premultiply": "--premultiply",
        "BackgroundSettings.blurMode": "--blur-mode",
        "BackgroundSettings.fit": "--background-fit",
        "BackgroundSettings.missingMask": "--missing-mask",
        "EncoderSettings.codec": "--codec",
        "EncoderSettings.crf": "--crf",
        "EncoderSettings.bitrate": "--bitrate",
        "EncoderSettings.preset": "--preset",
        "EncoderSettings.keyint": "--keyint",
        "EncoderSettings.tune": "--tune",
        "EncoderSettings.profile": "--profile",
        "EncoderSettings.level": "--level",
        "EncoderSettings.pixelFormat": "--pix-fmt",
        "EncoderSettings.encoderOptions": "--encoder-opt",
        "EncoderSettings.threads": "--threads",
        "PoseOverrides.fovY": "--fov",
        "PoseOverrides.zNear": "--znear",
        "PoseOverrides.intrinsics": "--intrinsics",
        "PoseSettings.missingPose": "--missing-pose",
        "PoseSettings.absoluteTime": "--pose-time absolute (or relative)",
        "PoseSettings.offset": "--pose-offset SECONDS",
        "PoseSettings.maxMissedFraction": "--max-unmatched-poses",
        "PoseSettings.streamPlacement": "--stream ID (render or track CALL)",
        "maxDecodeErrors": "--strict or --max-decode-errors",
        "allowLongCall": "--allow-long-call",
        "ComposeOptions.allowLongCall": "--allow-long-call",
        "ComposeOptions.names": "--names",
        "CallLayout.focus": "--focus",
        "CallPoseClock.epoch": "--pose-time epoch",
        "CallPoseClock.call": "--pose-time call",
        "InputPolicy.allowed": "--allow-protocols",
        "SampleSettings.size": "--size",
        "SampleSettings.seconds": "--seconds",
    ]

    /// `error`'s message with the flags in place of the option properties it names.
    static func message(of error: ReplayError) -> String {
        error.message { flags[$0] }
    }

    /// A warning of the library's (a report's, a log line's) with the flags in place of the option
    /// properties it names between backticks: warnings carry no option list.
    static func warning(_ text: String) -> String {
        flags.reduce(text) { text, entry in text.replacingOccurrences(of: "`\(entry.key)`", with: entry.value) }
    }

    /// `body`'s value, or its error as ArgumentParser's `ValidationError` in flags: for a value
    /// the library parses while the arguments are read.
    static func flagged<Value>(_ body: () throws(ReplayError) -> Value) throws -> Value {
        do { return try body() } catch { throw ValidationError(message(of: error)) }
    }
}
