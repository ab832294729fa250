import Synchronization
import CFFmpeg
import Foundation

/// Runs one render: demux → decode → orient/scale → effects → encode → mux, as three
/// concurrent stages joined by bounded queues (two when frames pass the middle one unchanged),
/// with every frame kept at its own timestamp and every other stream copied untouched.
public final class Renderer {
    /// What this render does; fixed when it is made.
    public let options: RenderOptions
    private let extraEffects: [any FrameEffect]
    /// Where this render's warnings go and what its inputs may reach; `nil`: the environment of
    /// the task that runs it, else the process's.
    public let environment: JobEnvironment?

    /// A render as `options` describe it, under `environment`; nothing runs until ``run(onProgress:)`` or ``start()``.
    public convenience init(options: RenderOptions, environment: JobEnvironment? = nil) {
        self.init(options: options, extraEffects: [], environment: environment)
    }

    /// A render that also runs effects of the caller's own on every frame.
    /// - Parameters:
    ///   - extraEffects: processing steps of the caller's own, applied in order after the ones the
    ///     options ask for (background replacement, annotations); each is used by this render's
    ///     processing thread only, so hand a new instance to each render.
    ///   - environment: where its warnings go and what its inputs may reach (`nil`: the task's, else the process's).
    public init(options: RenderOptions, extraEffects: [any FrameEffect], environment: JobEnvironment? = nil) {
        self.options = options
        self.extraEffects = extraEffects
        self.environment = environment
    }

    /// Renders on the calling thread; returns the report. On any failure the output path is left untouched.
    /// The blocking form, for a program without `async` code (the `fxreplay` command); the `async`
    /// ones are ``run(onProgress:)`` and ``start()``.
    /// - Parameters:
    ///   - style: how progress shows on ``Console`` (`.none` for nothing).
    ///   - label: what the progress lines call the job.
    ///   - observe: called about ten times a second with the frames written so far and the
    ///     number expected (when the input says), for a caller's own progress display; throwing
    ///     from it stops the render with that error (how cancellation reaches the pipeline).
    ///   - beforeCommit: writes the caller's other outputs of this render (its report, say)
    ///     once the video is complete but before it is moved into place, so that a failure there
    ///     leaves no video either: the outputs of a run appear together or not at all.
    public func run(progress style: ProgressStyle = .auto, label: String = "render",
                     observe: (_ framesDone: Int, _ framesExpected: Int?) throws(ReplayError) -> Void = { _, _ in },
                    beforeCommit: (RenderReport) throws(ReplayError) -> Void = { _ in }) throws(ReplayError) -> RenderReport {
        try PipelineRun.run(in: environment, progress: style, label: label, observe: observe, beforeCommit: beforeCommit) { () throws(ReplayError) in
            try RenderSession(options: options, extraEffects: extraEffects)
        }
    }
}

/// The state of one running render; private to the pipeline.
private final class RenderSession: PipelineSession, @unchecked Sendable {
    let options: RenderOptions
    let effects: EffectBox
    let demuxer: Demuxer
    let decoder: Decoder
    /// Encodes the pictures and writes them, the copied packets and the sound: the one writer.
    let output: OutputStage
    var outputFile: AtomicOutput { output.muxer.output }
    var expectedSeconds: Double? { demuxer.durationSeconds }
    var encoder: Encoder { output.encoder }
    var muxer: Muxer { output.muxer }
    let videoIndex: Int
    /// One frame at the stream's declared (or guessed) rate, in its time base: the step between
    /// pictures that come without timestamps (a raw H.264 stream).
    let frameTicks: Int64
    /// Input stream index → output stream index, for streams copied untouched.
    let copied: [Int: Int]
    let timeBase: Rational
    /// How pictures are turned, the sizes they pass through and the stretch kept.
    let plan: RenderPlan
    var workingSize: PictureSize { plan.workingSize }
    /// With `from`/`to`: the frames kept, as video timestamps on the input's clock.
    var trim: RenderPlan.Trim? { plan.trim }
    /// How each frame is prepared (``FramePreparation``): turned upright (display orientation,
    /// where effects see it), mirrored when asked, at the output size, and with --keep-rotation
    /// turned back to the stored orientation the kept rotation matrix expects; not turned at all
    /// with a kept rotation when nothing looks at the picture.
    let geometry: FramePreparation.Geometry
    /// The pictures' format between decoding and encoding (with alpha when the output or the mask needs it).
    let workingFormat: AVPixelFormat
    /// The encoder's: its pixel format, limited range for a codec that cannot store full range.
    let encoderFormat: FramePreparation.Format
    /// Colour matrix and range of the decoded frames, and of the frames effects see.
    let colorSpace: ColorSpace
    let expectedFrames: Int?
    var report: RenderReport
    let framePoses: FramePoses?
    /// The pose SEI written with `embedPoses`, and kept (others stripped) when a frame carries it.
    let poseSEI: PoseSEI
    /// With a trim: the input's frames by timestamp (``FrameClock``).
    let inputFrames: InputFrameNumbers?

    /// Four frames between stages absorb the encoder's stalls; each more holds a picture (1.4 MB at
    /// 720p) and the decoder buffer behind it: 8 made peak RSS 1.14× ffmpeg's, 4 makes it 1.08×.
    /// With frames at once the lanes' slots (two per lane) hold frames between the stages already,
    /// and one frame each side does (blurred background, 720p on 2 cores: 8–9 MB less, as fast).
    /// Effects drawn one frame at a time take two each side (20 annotations at 720p: 7 MB less, as
    /// fast; with one, veryfast ran 3–9 % slower).
    let decoded: BoundedQueue<Frame>
    let processed: BoundedQueue<Frame>
    /// The effects that split into an in-order and a per-frame step (``SplitFrameEffect``).
    let splitEffects: [any SplitFrameEffect]
    /// The process stage's threads when it works on several frames at once; 1 when it does not.
    let frameLanes: Int
    /// Frames leave the process stage as they come (no effects, nothing turned, scaled or
    /// converted): the decoding thread hands them to the encoder itself, one thread hand-off less a
    /// frame (a plain 720p re-encode: 500–1 000 fewer context switches in 900 frames, 7 MB less).
    let passesFramesThrough: Bool
    let failure = Locked<ReplayError?>(nil)
    /// The process stage's lanes, when it runs several frames at once.
    let inFlight = Locked<FramesInFlight<Frame, Frame>?>(nil)
    let framesDone = Atomic<Int>(0)
    let counters = Locked(Counters())
    /// The video's decoding: pictures, damage (against `--max-decode-errors`), a cut-short end.
    let sourceCounters: SourceCounters

    struct Counters {
        var badPackets = 0
        var videoSeconds = 0.0
        /// Frames given a pose SEI (`embedPoses`).
        var framesWithPoseSEI = 0
        /// Process lanes working at the end (``FramesInFlight``).
        var processLanes = 1
    }

    init(options: RenderOptions, extraEffects: [any FrameEffect]) throws(ReplayError) {
        self.options = options
        sourceCounters = SourceCounters(limit: options.maxDecodeErrors)
        demuxer = try Demuxer(url: options.input)
        guard let video = demuxer.bestVideoStream else { throw .badInput("\(options.input): no video stream") }
        try video.requireQuarterTurns(of: options.input)
        videoIndex = video.index
        timeBase = video.timeBase
        decoder = try Decoder(demuxer: demuxer, stream: video.index, threads: options.encoder.threads,
                              reproducibleErrors: options.encoder.deterministic)
        guard video.width > 0, video.height > 0 else { throw .badInput("\(options.input): video stream has no picture size") }
        let stream = demuxer.stream(video.index)
        let frameRate = demuxer.nominalFrameRate(ofStream: video.index)
        let facts = RenderPlan.Video(stored: PictureSize(width: video.width, height: video.height), rotation: video.rotation,
                                     mirrored: video.mirrored, timeBase: video.timeBase, startTicks: video.startTime,
                                     declaredFrames: Int(clamping: video.declaredFrames), frameRate: Rational(frameRate),
                                     containerSeconds: demuxer.durationSeconds)
        let plan = try RenderPlan(video: facts, options: options)
        self.plan = plan
        let shown = plan.shown, stored = facts.stored, display = shown.turned(stored)
        let outputSize = plan.outputSize, trim = plan.trim

        let file = try AtomicOutput(path: options.output, overwrite: options.overwrite, overwriteOption: "RenderOptions.overwrite",
                                      inputs: options.inputFiles)
        let muxer = try Muxer(output: file, bitexact: options.encoder.deterministic)
        muxer.faststart = options.encoder.faststart
        muxer.copyMetadata(from: demuxer)
        let codec = try options.background?.alphaCodec(encoder: options.encoder, output: options.output)
            ?? options.encoder.codec ?? VideoCodec.defaultCodec(forOutput: options.output)
        workingFormat = options.background?.needsAlphaPlane == true ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        if options.keepRotation && (video.rotation % 360 != 0 || video.mirrored) && !muxer.isMP4Family {
            let orientation = (video.rotation % 360 != 0 ? ["\(video.rotation)° rotation"] : []) + (video.mirrored ? ["mirroring"] : [])
            throw .usage("\(options.output): a .\(URL(fileURLWithPath: options.output.string).pathExtension) file cannot store the input's "
                         + "\(orientation.joined(separator: " and ")), which `RenderOptions.keepRotation` (and poses embed) keeps: write .mp4 or .mov",
                         options: ["RenderOptions.keepRotation"])
        }
        let ignoredSettings = try options.encoder.check(for: codec)
        if !muxer.accepts(video: Self.codecID(codec), width: outputSize.width, height: outputSize.height) {
            throw .usage("\(options.output): a .\(URL(fileURLWithPath: options.output.string).pathExtension) file cannot hold \(codec.rawValue) video")
        }
        frameTicks = demuxer.nominalFrameTicks(ofStream: video.index)
        let encoder = try Encoder(settings: options.encoder, codec: codec, width: outputSize.width, height: outputSize.height,
                              timeBase: stream.pointee.time_base, frameRate: frameRate,
                              sampleAspectRatio: Self.sampleAspectRatio(of: stream, turned: plan.turnBack == nil && shown.swapsSides,
                                                                        from: plan.turnBack == nil ? display : stored, to: outputSize),
                              colorOf: stream.pointee.codecpar, alpha: options.background?.outputsAlpha ?? false, globalHeader: muxer.needsGlobalHeader)
        let videoOut = try options.keepRotation ? muxer.addStream(encoder: encoder, rotation: video.rotation, mirrored: video.mirrored)
            : muxer.addStream(encoder: encoder)
        muxer.copyTags(from: stream, to: videoOut)
        // A QuickTime timecode track has no codec to copy, but the video's timecode tag (from it, if
        // need be) carries its start, and from that MP4/MOV write a new one (as ffmpeg does).
        var timecodeTracks: [Int] = []
        for info in demuxer.streams where Self.isTimecodeTrack(demuxer.stream(info.index)) { timecodeTracks.append(info.index) }
        let outputStream = muxer.context.pointee.streams[videoOut]!
        if av_dict_get(outputStream.pointee.metadata, "timecode", nil, 0) == nil, let track = timecodeTracks.first,
           let timecode = av_dict_get(demuxer.stream(track).pointee.metadata, "timecode", nil, 0) {
            av_dict_set(&outputStream.pointee.metadata, "timecode", timecode.pointee.value, 0)
        }
        let timecodeKept = av_dict_get(outputStream.pointee.metadata, "timecode", nil, 0) != nil
        // (The timecode track counts frames at the stream's rate, without which MP4/MOV write none.)
        if timecodeKept && muxer.isMP4Family { outputStream.pointee.avg_frame_rate = frameRate }

        var copied: [Int: Int] = [:]
        var dropped: [String] = []
        var sound: RenderSound?
        let encodedAudio = try Self.audioToEncode(options: options, demuxer: demuxer, muxer: muxer, trimmed: trim != nil)
        for info in demuxer.streams where info.index != video.index {
            if info.kind == .audio && options.audio.mode == .none { continue }
            if info.index == encodedAudio?.index {
                sound = try RenderSound(input: options.input, from: trim?.startSeconds, to: trim?.endSeconds, settings: options.audio, muxer: muxer)
                continue
            }
            if let out = try muxer.addCopiedStream(from: demuxer, stream: info.index) {
                copied[info.index] = out
            } else if !(timecodeKept && timecodeTracks.contains(info.index)) {
                dropped.append("stream \(info.index) (\(info.kind.rawValue), \(info.codecName))")
            }
        }
        self.copied = copied
        // The sound is written in step, up to a little past each frame, so the container interleaves them closely.
        output = OutputStage(encoder: encoder, muxer: muxer, videoStream: videoOut, sound: sound?.track,
                             soundEnd: { [timeBase, start = sound?.start ?? 0] pts in timeBase.seconds(pts) - start + 0.1 })
        demuxer.keepOnly(streams: Set(copied.keys).union([video.index]))
        if options.embedPoses {
            guard options.poses != nil else {
                throw .usage("`RenderOptions.embedPoses` needs `RenderOptions.poses`", options: ["RenderOptions.embedPoses", "RenderOptions.poses"])
            }
            guard codec.carriesSEI else {
                throw .usage("`RenderOptions.embedPoses` needs an H.264 or HEVC output (`RenderOptions.encoder.codec` h264 or hevc)",
                             options: ["RenderOptions.embedPoses", "RenderOptions.encoder.codec"])
            }
        }
        poseSEI = try options.poses?.seiFormat() ?? PoseSEI()
        framePoses = try options.poses.map { (settings: PoseSettings) throws(ReplayError) in
            try FramePoses(settings: settings, input: options.input)
        }
        // A trimmed render numbers and times its frames from the input's first, as the whole render
        // does, so masks, backgrounds and poses pair with the same frames.
        if trim == nil {
            inputFrames = nil
        } else if let framePoses {
            inputFrames = framePoses.numbers
        } else {
            inputFrames = InputFrameNumbers(scan: try VideoPacketScan(path: options.input))
        }
        if let inputFrames {
            try plan.checkFrom(options, firstPTS: inputFrames.firstPTS, lastPTS: inputFrames.lastPTS, frameTicks: frameTicks, timeBase: timeBase)
        }
        colorSpace = ColorSpace(codecParameters: stream.pointee.codecpar.pointee, height: outputSize.height)
        encoderFormat = FramePreparation.Format(pixelFormat: encoder.pixelFormat,
                                                colorSpace: codec.storesFullRange ? colorSpace : ColorSpace(matrix: colorSpace.matrix, fullRange: false))
        let context = EffectContext(options: options, demuxer: demuxer, videoStream: video,
                                    outputSize: plan.workingSize, colorSpace: colorSpace, poses: framePoses)
        effects = EffectBox(try makeEffects(for: context) + extraEffects)
        // Frames at once when every effect splits (a caller's own effects run one frame at a time).
        let split = effects.list.compactMap { $0 as? any SplitFrameEffect }
        splitEffects = split
        let atOnce = !split.isEmpty && split.count == effects.list.count && split.allSatisfy(\.processesFramesAtOnce)
        frameLanes = atOnce ? options.resolvedProcessThreads : 1
        let queueDepth = frameLanes > 1 ? 1 : effects.list.isEmpty ? 4 : 2
        decoded = BoundedQueue(capacity: queueDepth)
        processed = BoundedQueue(capacity: queueDepth)
        geometry = plan.turnBack == nil || options.mirror || !effects.list.isEmpty
            ? FramePreparation.Geometry(orientation: plan.upright, size: plan.workingSize, turnBack: plan.turnBack)
            : FramePreparation.Geometry(orientation: .upright, size: plan.outputSize)
        let storedFormat = AVPixelFormat(rawValue: stream.pointee.codecpar.pointee.format)
        passesFramesThrough = effects.list.isEmpty && geometry == .init(orientation: .upright, size: stored)
            && storedFormat == workingFormat && encoderFormat.pixelFormat == workingFormat
        let videoTimeBase = stream.pointee.time_base
        // MP4/MOV hide what lies before 0 behind the edit list (AAC priming, rightly): a video
        // starting before 0 (an MPEG-TS whose clock wrapped) would lose its first frames in every
        // player, so then every stream moves later together until the earliest starts at 0.
        if let trim {
            // A trimmed render starts at 0: every stream moves earlier by the cut.
            muxer.delayAll(by: -trim.start, in: videoTimeBase)
        } else if muxer.isMP4Family, stream.pointee.start_time != noPTS, stream.pointee.start_time < 0 {
            var earliest: Int64 = 0
            for index in [video.index] + copied.keys {
                let other = demuxer.stream(index).pointee
                guard other.start_time != noPTS else { continue }
                earliest = min(earliest, av_rescale_q_rnd(other.start_time, other.time_base, videoTimeBase, AV_ROUND_DOWN))
            }
            muxer.delayAll(by: -earliest, in: videoTimeBase)
        }
        try muxer.writeHeader(movieTimeScale: videoTimeBase.den > 1000 ? videoTimeBase.den : nil)

        expectedFrames = plan.expectedFrames(scannedFrames: framePoses?.scan.frames.count)
        report = RenderReport(input: options.input, output: .init(
            path: options.output, container: muxer.formatName, codec: codec.encoderName,
            width: outputSize.width, height: outputSize.height,
            pixelFormat: String(cString: av_get_pix_fmt_name(encoder.pixelFormat)), bytes: 0, copiedStreams: copied.count))
        report.droppedStreams = dropped
        report.warnings += ignoredSettings
        if muxer.isFragmented { report.warnings.append("\(options.output) cannot seek (a pipe): written as fragmented MP4") }
        if options.embedPoses, encoder.carriesSEI, let warning = framePoses?.pose32Warning { report.warnings.append(warning) }
        if let warning = framePoses?.timeline.warning { report.warnings.append(warning) }
        report.warnings += plan.warnings
        // Frames are processed as 8-bit 4:2:0: deeper or fuller pictures lose precision, said once.
        let inputFormat = AVPixelFormat(rawValue: stream.pointee.codecpar.pointee.format)
        if let descriptor = av_pix_fmt_desc_get(inputFormat)?.pointee,
           descriptor.comp.0.depth > 8 || descriptor.log2_chroma_w != 1 || descriptor.log2_chroma_h != 1 {
            report.warnings.append("the input's \(Scaler.name(inputFormat.rawValue)) pictures are processed as 8-bit 4:2:0")
        }
        if let encodedAudio, let note = encodedAudio.note { report.warnings.append(note) }
        for stream in dropped {
            report.warnings.append("\(stream) dropped: a .\(URL(fileURLWithPath: options.output.string).pathExtension) file cannot hold it")
        }
    }

    /// A QuickTime timecode track: a data stream tagged 'tmcd'.
    static func isTimecodeTrack(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        let parameters = stream.pointee.codecpar.pointee
        return parameters.codec_type == AVMEDIA_TYPE_DATA && parameters.codec_tag == Muxer.codecTag("tmcd")
    }

    /// The audio stream to encode anew rather than copy, if any: the first, with `--audio encode`,
    /// when the output cannot hold its codec (then `note` says so) or when the render is trimmed
    /// (a cut falls inside a packet: encoding cuts to the sample).
    static func audioToEncode(options: RenderOptions, demuxer: Demuxer, muxer: Muxer,
                              trimmed: Bool) throws(ReplayError) -> (index: Int, note: String?)? {
        guard options.audio.mode != .none, let first = demuxer.streams.first(where: { $0.kind == .audio }) else { return nil }
        let codec = options.audio.codec ?? AudioCodec.defaultCodec(forOutput: options.output)
        guard muxer.accepts(audio: codec) else {
            throw .usage("`RenderOptions.audio.codec` \(codec.rawValue): a .\(URL(fileURLWithPath: options.output.string).pathExtension) file cannot hold it",
                         options: ["RenderOptions.audio.codec"])
        }
        if options.audio.mode == .encode || trimmed { return (first.index, nil) }
        if muxer.accepts(demuxer.stream(first.index).pointee.codecpar) { return nil }
        return (first.index, "the input's \(first.codecName) sound is encoded as \(codec.rawValue): "
                + "a .\(URL(fileURLWithPath: options.output.string).pathExtension) file cannot hold \(first.codecName)")
    }

    static func codecID(_ codec: VideoCodec) -> AVCodecID {
        avcodec_find_encoder_by_name(codec.encoderName)?.pointee.id ?? AV_CODEC_ID_NONE
    }

    /// Runs the stages to completion, calling `progress` with the frames written so far; an
    /// error thrown from `progress` stops the stages and is thrown once they have.
    func run(progress: (Int) throws(ReplayError) -> Void) throws(ReplayError) {
        let group = DispatchGroup()
        for stage in passesFramesThrough ? [decodeStage, encodeStage] : [decodeStage, processStage, encodeStage] {
            group.enter()
            JobThread.start { [self] in
                do throws(ReplayError) { try stage() } catch { fail(error) }
                group.leave()
            }
        }
        while group.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            do throws(ReplayError) { try progress(framesDone.load(ordering: .relaxed)) } catch { fail(error) }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private func fail(_ error: ReplayError) {
        failure.withLock { if $0 == nil { $0 = error } }
        decoded.cancel()
        processed.cancel()
        inFlight.withLock { $0?.cancel() }
    }

    private var failed: Bool { failure.withLock { $0 != nil } }

    // MARK: Stage 1: demux and decode

    private func decodeStage() throws(ReplayError) {
        defer {
            decoded.close()
            if passesFramesThrough { processed.close() }
        }
        let handOn = passesFramesThrough ? try framesOneAtATime() : { [decoded] frame in decoded.put(frame) }
        // Per copied output stream, the last decode time written.
        var lastCopiedDTS: [Int: Int64] = [:]
        let source = try FrameSource(demuxer: demuxer, stream: demuxer.streams[videoIndex], decoder: decoder, repairs: true,
                                 counters: sourceCounters, readErrorEndsStream: true) { [self] (packet) throws(ReplayError) in
            guard let out = copied[packet.streamIndex],
                  // Packets an edit list cuts (before a cut made with `-ss … -c copy`) are never played,
                  // like the video frames there; a container without edit lists would play them.
                  !(packet.isDiscarded && !muxer.isMP4Family), isInTrim(packet) else { return packet.unref() }
            if packet.dts != noPTS, let last = lastCopiedDTS[out], packet.dts < last || (packet.dts == last && muxer.needsIncreasingTimestamps) {
                counters.withLock { $0.badPackets += 1 }
                return packet.unref()
            }
            if packet.dts != noPTS { lastCopiedDTS[out] = packet.dts }
            try output.copy(packet, to: out)
        }
        if let trim { demuxer.seek(toSeconds: timeBase.seconds(trim.start)) }
        while !failed, let frame = try source.next() {
            if let trim {
                if let end = trim.end, frame.pts >= end {
                    frame.recycle()
                    return
                }
                // (The frame shown at the cut is kept: the encoder starts it there.)
                if frame.pts + frame.duration <= trim.start {
                    frame.recycle()
                    continue
                }
                if let end = trim.end { frame.duration = min(frame.duration, end - frame.pts) }
            }
            guard try handOn(frame) else { return }
        }
    }

    /// Whether a copied packet lies within --from/--to (all do without them).
    private func isInTrim(_ packet: Packet) -> Bool {
        guard let trim, packet.pts != noPTS else { return true }
        let source = demuxer.stream(packet.streamIndex).pointee.time_base
        let pts = av_rescale_q(packet.pts, source, timeBase.av)
        return pts >= trim.start && trim.end.map { pts < $0 } ?? true
    }

    // MARK: Stage 2: orient, scale, apply effects

    private func processStage() throws(ReplayError) {
        defer { processed.close() }
        if frameLanes > 1 { return try processFramesAtOnce(splitEffects, lanes: frameLanes) }
        for effect in splitEffects { try effect.reserve(slots: 1, lanes: 1, bands: options.resolvedProcessThreads) }
        let prepareAndHandOn = try framesOneAtATime()
        while let frame = decoded.take() {
            guard try prepareAndHandOn(frame) else { return }
        }
    }

    /// Prepares each frame given it on the calling thread, in order, and puts it in `processed`;
    /// `false` once that is closed.
    private func framesOneAtATime() throws(ReplayError) -> (Frame) throws(ReplayError) -> Bool {
        let preparation = try makePreparation()
        var clock = FrameClock(inputFrames: inputFrames)
        return { [self] frame throws(ReplayError) in
            let time = time(of: frame, by: &clock)
            let output = try prepare(frame, with: preparation, time: time) { [effects] image throws(ReplayError) in
                for effect in effects.list { try effect.apply(to: image, at: time) }
            }
            guard processed.put(output) else {
                output.recycle()
                return false
            }
            return true
        }
    }

    /// The frame's time from `clock`, noting how far the video has got for the report.
    private func time(of frame: Frame, by clock: inout FrameClock) -> FrameTime {
        let (time, outputSeconds) = clock.time(of: frame, timeBase: timeBase)
        counters.withLock { $0.videoSeconds = outputSeconds }
        return time
    }

    /// The process stage with up to `lanes` threads, each working on a frame of its own: the effects'
    /// in-order steps run here, one frame after another, and everything else on the lanes, whose
    /// frames are handed to the encoder in order (``FramesInFlight``). Lanes start few and are added
    /// only while they, not the decoder or the encoder, hold the render back: each lane holds two
    /// frames and its own buffers (about 7 MB at 720p with a blurred background), so a render held back
    /// by its encoder keeps the memory of few lanes on any number of cores (``StartingLanes``).
    private func processFramesAtOnce(_ split: [any SplitFrameEffect], lanes: Int) throws(ReplayError) {
        let slots = lanes * FramesInFlight<Frame, Frame>.slotsPerLane
        for effect in split { try effect.reserve(slots: slots, lanes: lanes, bands: 1) }
        let frames = (0..<slots).map { EffectFrame(slot: $0, time: FrameTime(index: 0, pts: 0, seconds: 0, streamSeconds: 0, duration: 0),
                                                   size: workingSize) }
        let buffers = FramePool(keepsBuffers: true)
        let preparations = try (0..<lanes).map { _ throws(ReplayError) in try makePreparation(sharing: buffers) }
        let pool = FramesInFlight<Frame, Frame>(lanes: lanes, startingLanes: StartingLanes.for(split, of: lanes), work: { [self] frame, slot, lane throws(ReplayError) in
            let effectFrame = frames[slot]
            return try prepare(frame, with: preparations[lane], time: effectFrame.time) { image throws(ReplayError) in
                for effect in split { try effect.process(image, effectFrame, lane: lane) }
            }
        }, deliver: { [self] in processed.put($0) }, discard: { $0.recycle() }, fail: { [self] in fail($0) })
        inFlight.withLock { $0 = pool }
        defer {
            pool.finish()
            counters.withLock { $0.processLanes = pool.lanes }
        }
        var clock = FrameClock(inputFrames: inputFrames)
        // The slot first: a frame taken while every slot is busy would hold one more decoder buffer.
        while let slot = pool.takeSlot(), let frame = decoded.take() {
            let time = time(of: frame, by: &clock)
            frames[slot].time = time
            do throws(ReplayError) {
                for effect in split { try effect.sequence(frames[slot]) }
            } catch {
                frame.recycle()
                // Reported in its turn, after the frames before it.
                pool.submit(.failure(error), slot: slot)
                return
            }
            guard pool.submit(.success(frame), slot: slot) else { return }
        }
    }

    /// One processing thread's ``FramePreparation``: its own scalers; its own buffers, or `buffers`
    /// shared with the other lanes.
    private func makePreparation(sharing buffers: FramePool = FramePool(keepsBuffers: true)) throws(ReplayError) -> FramePreparation {
        try FramePreparation(working: .init(pixelFormat: workingFormat), output: encoderFormat, buffers: buffers)
    }

    /// Turns a decoded frame into the frame the encoder gets (``FramePreparation``: upright, at the
    /// output size, with effects applied, in the encoder's pixel format), with its pose SEI.
    private func prepare(_ decodedFrame: Frame, with preparation: FramePreparation, time: FrameTime,
                         effects applyEffects: (YUVImage) throws(ReplayError) -> Void) throws(ReplayError) -> Frame {
        let current: Frame
        do {
            current = try preparation.prepare(decodedFrame, geometry, colorSpace: colorSpace, releasesSource: true, drawsEffects: !effects.list.isEmpty, effects: applyEffects,
                                              source: "\(options.input): frame \(time.index)")
        } catch {
            decodedFrame.recycle()
            throw error
        }
        if current !== decodedFrame { decodedFrame.recycle() }
        current.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        if encoder.carriesSEI && options.embedPoses {
            // A frame without a pose (hidden) carries none, not the input's old one.
            let pose = framePoses?.pose32(pts: time.pts)
            PoseSideData.replace(in: current, with: pose.map { poseSEI.userDataPayload(for: $0) })
            if pose != nil { counters.withLock { $0.framesWithPoseSEI += 1 } }
        } else if encoder.carriesSEI {
            PoseSideData.keepOnlyPose(in: current, reader: poseSEI)
        }
        return current
    }

    // MARK: Stage 3: encode and mux

    private func encodeStage() throws(ReplayError) {
        try output.run(frames: processed, startingAt: trim?.start, failed: { failed }, written: { framesDone.add(1, ordering: .relaxed) })
    }

    // MARK: Finishing

    /// The output's pixel shape: the input's (its container's, else its bitstream's; square when
    /// unknown), swapped by a quarter turn and stretched as the picture is scaled, so the shape it is
    /// shown in stays the same (as FFmpeg's scale filter does).
    static func sampleAspectRatio(of stream: UnsafeMutablePointer<AVStream>, turned: Bool, from display: PictureSize,
                                  to output: PictureSize) -> AVRational {
        let container = stream.pointee.sample_aspect_ratio
        var sar = container.num > 0 ? container : stream.pointee.codecpar.pointee.sample_aspect_ratio
        guard sar.num > 0, sar.den > 0 else { return AVRational(num: 1, den: 1) }
        if turned { sar = AVRational(num: sar.den, den: sar.num) }
        var num: Int32 = 1, den: Int32 = 1
        av_reduce(&num, &den, Int64(sar.num) * Int64(display.width) * Int64(output.height),
                  Int64(sar.den) * Int64(display.height) * Int64(output.width), Int64(Int32.max))
        return AVRational(num: num, den: den)
    }

    func finish() throws(ReplayError) -> RenderReport {
        let counts = counters.withLock { $0 }, source = sourceCounters.counts
        // A video without a single picture is no render (an index with its data cut off, say).
        guard framesDone.load(ordering: .relaxed) > 0 else {
            throw .badInput("\(options.input): no video frame could be decoded"
                            + (source.decodeErrors > 0 ? " (\(source.decodeErrors) decode errors)" : ""))
        }
        // (A render cut with --to stops before the end: whether the file reaches it is not known.)
        let cutShort = trim?.end == nil ? source.cutShort : nil
        var effectCounts = EffectCounts(of: effects.list)
        // A damaged mask video counts too: its frames silently took the mask before; so does one
        // cut short (its frames then held the last mask).
        let maskErrors = effectCounts.background?.maskDecodeErrors ?? 0
        let maskCutShort = effects.list.lazy.compactMap { ($0 as? BackgroundReplacement)?.maskCutShort }.first
        var maskFile = "the mask"
        if case .video(let path)? = options.background?.mask { maskFile = path }
        // Damage like a decode error: past --max-decode-errors (--strict) nothing is written.
        if let limit = options.maxDecodeErrors {
            var damage = cutShort == nil ? source.decodeErrors : try sourceCounters.countCutShort(of: options.input)
            for (count, message) in [(maskErrors, "\(maskFile): \(maskErrors) damaged packets; stopping (`maxDecodeErrors`)"),
                                     (maskCutShort == nil ? 0 : 1, "\(maskFile): \(maskCutShort ?? "")")] where count > 0 {
                damage += count
                if damage > limit { throw .badInput(message, options: ["maxDecodeErrors"]) }
            }
        }
        try muxer.finish(commit: false)
        report.framesDecoded = source.decoded
        report.framesEncoded = framesDone.load(ordering: .relaxed)
        report.decodeErrors = source.decodeErrors
        report.framesWithBadTimestamps = source.badTimestamps
        report.packetsWithBadTimestamps = counts.badPackets
        report.processLanes = counts.processLanes
        report.decoderThreads = decoder.threads
        report.resolutionChanges = source.resolutionChanges
        report.videoSeconds = counts.videoSeconds
        // (Not yet moved into place: the file is still under its temporary name.)
        report.output.bytes = (try? FileManager.default.attributesOfItem(atPath: muxer.output.temporaryPath.string)[.size] as? Int64) ?? 0
        effectCounts.poses = framePoses.map { PoseCounts($0.timeline.report) }
        if options.embedPoses { effectCounts.poses?.framesWithPoseSEI = counts.framesWithPoseSEI }
        report.effects = effectCounts
        report.damage = source.damage
        if source.decodeErrors > 0 { report.warnings.append("\(source.decodeErrors) decode errors skipped") }
        for damage in source.damage.prefix(RenderReport.Damage.warningsListed) { report.warnings.append(damage.message) }
        if source.damage.count > RenderReport.Damage.warningsListed {
            report.warnings.append("\(source.damage.count - RenderReport.Damage.warningsListed) more damaged places (see the report's damage list)")
        }
        if maskErrors > 0 { report.warnings.append("\(maskFile): \(maskErrors) damaged packets skipped (their frames kept the mask before)") }
        if source.badTimestamps > 0 { report.warnings.append("\(source.badTimestamps) frames with non-increasing timestamps dropped") }
        if counts.badPackets > 0 {
            report.warnings.append("\(counts.badPackets) copied packets (audio…) whose timestamps went back dropped")
        }
        if let cutShort { report.warnings.append(cutShort) }
        if let maskCutShort { report.warnings.append("\(maskFile): \(maskCutShort)") }
        return report
    }
}

/// The effects list, handed to the processing thread (its in-order steps; per-frame steps on the lanes).
private final class EffectBox: @unchecked Sendable {
    let list: [any FrameEffect]
    init(_ list: [any FrameEffect]) { self.list = list }
}
