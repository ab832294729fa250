import CFFmpeg

/// What an effect may know about the render it is part of when it is set up.
package struct EffectContext {
    package let options: RenderOptions
    /// The opened input (effects that read the input's own side data or packets ahead of time).
    let demuxer: Demuxer
    package let videoStream: StreamInfo
    /// Frame size the effects see: display orientation, output size.
    package let outputSize: PictureSize
    /// Colour matrix and range of the frames the effects see.
    package let colorSpace: ColorSpace
    /// Every frame's pose, when the options name a pose source.
    package let poses: FramePoses?
}

/// The effects `options` ask for, in pipeline order: background replacement, then annotations.
func makeEffects(for context: EffectContext) throws(ReplayError) -> [any FrameEffect] {
    var effects: [any FrameEffect] = []
    if let background = context.options.background {
        effects.append(try BackgroundReplacement(settings: background, context: context))
    }
    if let annotations = context.options.annotations {
        // Drawn after background replacement, whose mask can hide them behind the person.
        let masks = effects.lazy.compactMap { $0 as? FrameMaskProvider }.first
        effects.append(try AnnotationEffect(settings: annotations, context: context, masks: masks))
    }
    return effects
}

extension ColorSpace {
    /// The colour space a stream declares; untagged streams are BT.709 when HD, BT.601 otherwise,
    /// limited range unless tagged full.
    init(codecParameters par: AVCodecParameters, height: Int) {
        self.init(tag: par.color_space, fullRange: par.color_range == AVCOL_RANGE_JPEG, height: height)
    }

    /// The colour space FFmpeg's tags describe; untagged pictures are BT.709 when HD, else BT.601.
    init(tag: AVColorSpace, fullRange: Bool, height: Int) {
        let matrix: Matrix
        switch tag {
        case AVCOL_SPC_BT709: matrix = .bt709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: matrix = .bt601
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: matrix = .bt2020
        default: matrix = height > 576 ? .bt709 : .bt601
        }
        self.init(matrix: matrix, fullRange: fullRange)
    }
}
