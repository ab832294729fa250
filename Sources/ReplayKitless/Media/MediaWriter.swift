import CFFmpeg
import Foundation

/// Writes a new recording from pictures and sound the caller makes, with exact timestamps:
/// test fixtures and the synthetic sample call. Audio is AAC (Opus in WebM) unless the spec names
/// the codec; a file may be audio-only (``init(path:audio:overwrite:group:)``).
package final class MediaWriter {
    /// The video track to write.
    package struct VideoSpec: Sendable {
        package var size: PictureSize
        /// Time base of the timestamps passed to ``MediaWriter/addVideoFrame(pts:duration:size:sei:draw:)``.
        package var timeBase: Rational
        /// Nominal rate, a hint for rate control only: timestamps decide timing.
        package var frameRate: Rational
        package var encoder: EncoderSettings
        /// Display rotation written to the container, degrees clockwise.
        package var rotation: Int
        /// Whether the container says to show the picture mirrored (before the rotation, as FFmpeg reads it).
        package var mirrored: Bool
        package var colorSpace: ColorSpace

        package init(size: PictureSize, timeBase: Rational, frameRate: Rational = Rational(30, 1),
                    encoder: EncoderSettings = EncoderSettings(), rotation: Int = 0, mirrored: Bool = false,
                    colorSpace: ColorSpace = .bt709Limited) {
            self.size = size
            self.timeBase = timeBase
            self.frameRate = frameRate
            self.encoder = encoder
            self.rotation = rotation
            self.mirrored = mirrored
            self.colorSpace = colorSpace
        }
    }

    /// The audio track to write.
    package struct AudioSpec: Sendable {
        package var sampleRate: Int
        package var channels: Int
        /// Timestamp of the first sample, in samples (an audio/video offset).
        package var startSample: Int64
        /// The codec; `nil` picks ``AudioCodec/defaultCodec(forOutput:)``.
        package var codec: AudioCodec?
        package init(sampleRate: Int = 48000, channels: Int = 1, startSample: Int64 = 0, codec: AudioCodec? = nil) {
            self.sampleRate = sampleRate
            self.channels = channels
            self.startSample = startSample
            self.codec = codec
        }
    }

    private let spec: VideoSpec
    private let codec: VideoCodec
    private let muxer: Muxer
    /// `nil` in an audio-only file.
    private var encoder: Encoder?
    private let videoStream: Int
    private let audio: AudioEncoder?
    private let picture: Frame
    private let converted: Frame
    private let scaler = Scaler()
    private let packet: Packet
    private let commitsOnFinish: Bool

    /// - Parameter group: write the file as one of the group's outputs, moved into place when the
    ///   group is committed rather than by ``finish()``.
    package convenience init(path: String, video: VideoSpec, audio: AudioSpec? = nil, overwrite: Bool = true,
                            group: OutputGroup? = nil) throws(ReplayError) {
        try self.init(path: path, optionalVideo: video, audio: audio, overwrite: overwrite, group: group)
    }

    /// A file with sound only (an audio-only participant of a call).
    package convenience init(path: String, audio: AudioSpec, overwrite: Bool = true, group: OutputGroup? = nil) throws(ReplayError) {
        try self.init(path: path, optionalVideo: nil, audio: audio, overwrite: overwrite, group: group)
    }

    private init(path: String, optionalVideo video: VideoSpec?, audio audioSpec: AudioSpec?, overwrite: Bool,
                 group: OutputGroup?) throws(ReplayError) {
        picture = try Frame()
        converted = try Frame()
        packet = try Packet()
        spec = video ?? VideoSpec(size: PictureSize(width: 0, height: 0), timeBase: Rational(1, 1))
        let path = FilePath(path)
        codec = spec.encoder.codec ?? VideoCodec.defaultCodec(forOutput: path)
        let output = if let group { try group.reserve(path, overwrite: overwrite) } else { try AtomicOutput(path: path, overwrite: overwrite) }
        commitsOnFinish = group == nil
        muxer = try Muxer(output: output, bitexact: true)
        if let video {
            let encoder = try MediaWriter.openEncoder(video, codec: codec, size: video.size, globalHeader: muxer.needsGlobalHeader)
            videoStream = try muxer.addStream(encoder: encoder, rotation: video.rotation, mirrored: video.mirrored)
            self.encoder = encoder
        } else {
            videoStream = -1
        }
        if let audioSpec {
            audio = try AudioEncoder(codec: audioSpec.codec ?? AudioCodec.defaultCodec(forOutput: path),
                                     sampleRate: audioSpec.sampleRate, channels: audioSpec.channels,
                                     startSample: audioSpec.startSample, muxer: muxer)
        } else {
            audio = nil
        }
        try muxer.writeHeader()
    }

    private static func openEncoder(_ spec: VideoSpec, codec: VideoCodec, size: PictureSize, globalHeader: Bool) throws(ReplayError) -> Encoder {
        var settings = spec.encoder
        settings.deterministic = true
        // Full-range pictures (exact masks) are tagged so; limited range stays untagged, as before.
        guard spec.colorSpace.fullRange else {
            return try Encoder(settings: settings, codec: codec, width: size.width, height: size.height,
                               timeBase: spec.timeBase.av, frameRate: spec.frameRate.av, colorOf: nil,
                               alpha: false, globalHeader: globalHeader)
        }
        guard let parameters = avcodec_parameters_alloc() else { throw .processing("avcodec_parameters_alloc: out of memory") }
        defer {
            var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
            avcodec_parameters_free(&owned)
        }
        parameters.pointee.color_range = AVCOL_RANGE_JPEG
        return try Encoder(settings: settings, codec: codec, width: size.width, height: size.height,
                           timeBase: spec.timeBase.av, frameRate: spec.frameRate.av, colorOf: UnsafePointer(parameters),
                           alpha: false, globalHeader: globalHeader)
    }

    /// Encodes one picture shown at `pts` for `duration` (both in the video time base).
    /// - Parameters:
    ///   - size: a new picture size from this frame on (a mid-stream resolution change; VP8/VP9 only).
    ///   - sei: `user_data_unregistered` SEI payload (UUID + data) for H.264/HEVC.
    ///   - draw: fills the 8-bit 4:2:0 picture.
    package func addVideoFrame(pts: Int64, duration: Int64, size: PictureSize? = nil, sei: [UInt8]? = nil,
                              draw: (YUVImage) -> Void) throws(ReplayError) {
        guard var encoder else { throw .usage("this writer has no video track") }
        do {
            if let size, size != PictureSize(width: encoder.context.pointee.width.int, height: encoder.context.pointee.height.int) {
                try drain(flush: true)
                encoder = try MediaWriter.openEncoder(spec, codec: codec, size: size, globalHeader: false)
                self.encoder = encoder
            }
            let width = encoder.context.pointee.width.int, height = encoder.context.pointee.height.int
            try picture.allocate(width: width, height: height, format: AV_PIX_FMT_YUV420P)
            guard var image = picture.yuvImage else { throw ReplayError.processing("no picture buffer") }
            image.colorSpace = spec.colorSpace
            draw(image)
            var frame = picture
            if encoder.pixelFormat != AV_PIX_FMT_YUV420P {
                try converted.allocate(width: width, height: height, format: encoder.pixelFormat)
                try scaler.convert(picture, into: converted)
                frame = converted
            }
            frame.pts = pts
            frame.duration = duration
            av_frame_remove_side_data(frame.pointer, AV_FRAME_DATA_SEI_UNREGISTERED)
            if let sei, let side = av_frame_new_side_data(frame.pointer, AV_FRAME_DATA_SEI_UNREGISTERED, sei.count) {
                sei.withUnsafeBytes { side.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: sei.count) }
            }
            try encoder.send(frame)
            try drain(flush: false)
        } catch let error as ReplayError { throw error } catch { throw .processing("\(error)") }
    }

    /// Encodes interleaved float samples in −1…1 (channel count of the audio spec).
    package func addAudio(_ samples: [Float]) throws(ReplayError) {
        guard let audio else { throw .usage("this writer has no audio track") }
        try samples.withUnsafeBufferPointer { (buffer) throws(ReplayError) in try audio.add(interleaved: buffer) }
    }

    /// Where the file is until it is moved into place (a group's output that is never committed is
    /// read from here, and removed with the group).
    package var temporaryPath: String { muxer.output.temporaryPath.string }

    /// Drains both encoders, writes the trailer and (unless it belongs to a group) moves the file into place.
    package func finish() throws(ReplayError) {
        try drain(flush: true)
        try audio?.finish()
        try muxer.finish(commit: commitsOnFinish)
    }

    private func drain(flush: Bool) throws(ReplayError) {
        guard let encoder else { return }
        if flush { try encoder.send(nil) }
        while try encoder.receive(into: packet) == .produced {
            try muxer.write(packet, stream: videoStream)
        }
    }
}

private extension Int32 {
    var int: Int { Int(self) }
}
