import Foundation
import Testing
@testable import ReplayKitless

@Suite struct BackgroundSettingsTests {
    @Test func transparentOutputsGetAnAlphaCodecOrAClearRefusal() throws {
        let settings = BackgroundSettings(mask: .video(path: "m.mkv"), background: .transparent)
        func encoder(_ codec: VideoCodec?, preset: String? = nil) -> EncoderSettings {
            var encoder = EncoderSettings()
            encoder.codec = codec
            encoder.preset = preset
            return encoder
        }
        #expect(try settings.alphaCodec(encoder: encoder(nil), output: "a.mov") == .prores)
        #expect(try settings.alphaCodec(encoder: encoder(nil, preset: "4444xq"), output: "a.mov") == .prores)
        #expect(try settings.alphaCodec(encoder: encoder(nil), output: "a.webm") == .vp9)
        #expect(try settings.alphaCodec(encoder: encoder(nil), output: "a.MKV") == .ffv1)
        #expect(try settings.alphaCodec(encoder: encoder(.vp9), output: "a.mkv") == .vp9)
        #expect(try settings.alphaCodec(encoder: encoder(.ffv1), output: "a.mov") == .ffv1)
        for (codec, preset, output) in [(nil, nil, "a.mp4"), (VideoCodec.h264, nil, "a.mov"), (.hevc, nil, "a.mkv"),
                                        (.vp8, nil, "a.webm"), (.vp9, nil, "a.mov"), (nil, "standard", "a.mov"), (.prores, "hq", "a.mkv")] {
            do {
                _ = try settings.alphaCodec(encoder: encoder(codec, preset: preset), output: FilePath(output))
                Issue.record("\(String(describing: codec)) \(preset ?? "") in \(output) accepted")
            } catch {
                #expect(error.kind == .usage && error.message.contains("transparent"))
                let advises = error.message.contains("prores") && error.message.contains("vp9") && error.message.contains("ffv1")
                #expect(advises || codec == .vp9 || preset != nil && error.message.contains("4444"))
            }
        }
        let opaque = BackgroundSettings(mask: .video(path: "m.mkv"), background: .blur(sigma: 4))
        #expect(try opaque.alphaCodec(encoder: encoder(.h264), output: "a.mp4") == nil)
        #expect(!opaque.needsAlphaPlane && settings.needsAlphaPlane && settings.outputsAlpha)
        #expect(BackgroundSettings(mask: .inputAlpha, background: .color(RGBAColor(red: 1, green: 2, blue: 3))).needsAlphaPlane)
    }

    @Test func shapingRunsInTheDocumentedOrderAndIsValidated() throws {
        var settings = BackgroundSettings(mask: .video(path: "m.mkv"), background: .blur(sigma: 4))
        #expect(settings.maskOperations.isEmpty)
        settings.invert = true
        settings.threshold = 100
        settings.shrink = 2
        settings.feather = 3
        #expect(settings.maskOperations == [.invert, .threshold(100), .shrink(pixels: 2), .feather(pixels: 3)])
        try settings.validate()
        settings.expand = 1
        #expect(throws: ReplayError.self) { try settings.validate() }
        settings.shrink = 0
        settings.smoothFrames = 33
        #expect(throws: ReplayError.self) { try settings.validate() }
        settings.smoothFrames = 4
        settings.premultiply = true
        // In the library's terms, which a front end renames (the CLI: "--premultiply needs --background transparent").
        let error = #expect(throws: ReplayError.self) { try settings.validate() }
        #expect(error?.message == "`BackgroundSettings.premultiply` needs `BackgroundSettings.background` transparent")
        #expect(error?.options == ["BackgroundSettings.premultiply", "BackgroundSettings.background"])
        #expect(error?.message(naming: { ["BackgroundSettings.premultiply": "--premultiply", "BackgroundSettings.background": "--background"][$0] })
                == "--premultiply needs --background transparent")
    }

    @Test func settingsRoundTripThroughJSON() throws {
        var settings = BackgroundSettings(mask: .imageSequence(pattern: "m/mask_%05d.png"), background: .image(path: "c:/beach.jpg"))
        settings.fit = .contain
        settings.letterboxColor = RGBAColor(red: 0x12, green: 0xAB, blue: 0xEF)
        settings.missingMask = .keepOriginal
        var options = RenderOptions(input: "in.mp4", output: "out.mp4")
        options.background = settings
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let json = try encoder.encode(options)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"#12ABEF\"") && text.contains("image:c:/beach.jpg") && text.contains("keep-original"))
        #expect(try JSONDecoder().decode(RenderOptions.self, from: json) == options)
        for spec in [BackgroundSpec.blur(sigma: 2.5), .color(RGBAColor(red: 1, green: 2, blue: 3)), .video(path: "v.mp4"), .transparent] {
            #expect(try BackgroundSpec(parsing: spec.description) == spec)
        }
    }

    /// `--blur-mode masked` only means something for a blur background; left at plain it stays out of
    /// the settings' JSON, so batch fingerprints of existing jobs do not change.
    @Test func blurModeNeedsABlurBackgroundAndLeavesPlainSettingsAlone() throws {
        var settings = BackgroundSettings(mask: .video(path: "m.mkv"), background: .blur(sigma: 4))
        let plain = try JSONEncoder().encode(settings)
        #expect(!String(decoding: plain, as: UTF8.self).contains("blurMode"))
        settings.blurMode = .masked
        try settings.validate()
        #expect(String(decoding: try JSONEncoder().encode(settings), as: UTF8.self).contains("\"blurMode\":\"masked\""))
        settings.background = .color(RGBAColor(red: 0, green: 0, blue: 0))
        #expect(throws: ReplayError.self) { try settings.validate() }
        settings.blurMode = .plain
        try settings.validate()
    }
}
