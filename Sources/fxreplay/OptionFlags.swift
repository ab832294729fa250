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
    ]

    /// `error`'s message with the flags in place of the option properties it names.
    static func message(of error: ReplayError) -> String {
        error.message { flags[$0] }
    }
}
