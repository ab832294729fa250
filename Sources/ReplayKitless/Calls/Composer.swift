import CFFmpeg
import Foundation
import Synchronization

/// Composes a whole call into one video (`fxreplay compose`, formats.md §9): output frame `k`
/// has presentation time `k / fps` and shows call time `from + k / fps`, each shown participant
/// with its latest picture due by then, in the tiles of the layout, which is recomputed whenever
/// someone with video joins or leaves.
///
/// Each video track is opened as the call reaches it and decoded on its own thread a few pictures ahead; this
/// thread lays out and paints each output frame and hands it to an encoding
/// thread over a bounded queue, so decoding, composing and encoding overlap and memory stays
/// bounded however long or large the call.
public final class Composer {
    /// What this composition does; fixed when it is made.
    public let options: ComposeOptions
    private let extraEffects: [any FrameEffect]
    /// Where this composition's warnings go and what its inputs may reach; `nil`: the environment
    /// of the task that runs it, else the process's.
    public let environment: JobEnvironment?

    /// A composition as `options` describe it, under `environment`; nothing runs until ``run(onProgress:)`` or ``start()``.
    public convenience init(options: ComposeOptions, environment: JobEnvironment? = nil) {
        self.init(options: options, extraEffects: [], environment: environment)
    }

    /// A composition that also runs effects of the caller's own on every composed frame.
    /// - Parameters:
    ///   - extraEffects: steps applied to each composed frame, in order (a contact sheet, say).
    ///   - environment: where its warnings go and what its inputs may reach (`nil`: the task's, else the process's).
    public init(options: ComposeOptions, extraEffects: [any FrameEffect], environment: JobEnvironment? = nil) {
        self.options = options
        self.extraEffects = extraEffects
        self.environment = environment
    }

    /// Composes on the calling thread, showing progress on the command line's ``Console``; returns
    /// the report. On any failure (or SIGINT, through ``AtomicOutput``) nothing is left under the
    /// output's name, nor any temporary file. The blocking form, for a program without `async`
    ///   code (the `fxreplay` command); the `async` one is ``run(onProgress:)``.
    /// - Parameters:
    ///   - style: how progress shows on ``Console`` (`.none` for nothing).
    ///   - label: what the progress lines call the job.
    ///   - observe: called with the frames written so far and the number expected; throwing from
    ///     it stops the composition with that error (how cancellation reaches the pipeline).
    ///   - beforeCommit: writes the caller's other outputs (report, preview) once the video
    ///     is complete but before it is moved into place.
    public func run(progress style: ProgressStyle = .auto, label: String = "compose",
                     observe: (_ framesDone: Int, _ framesExpected: Int?) throws(ReplayError) -> Void = { _, _ in },
                     beforeCommit: (ComposeReport) throws(ReplayError) -> Void = { _ in }) throws(ReplayError) -> ComposeReport {
        try PipelineRun.run(in: environment, progress: style, label: label, observe: observe, beforeCommit: beforeCommit) { () throws(ReplayError) in
            try ComposeSession(options: options, extraEffects: extraEffects)
        }
    }
}

/// The state of one running composition; private to ``Composer``.
private final class ComposeSession: PipelineSession, @unchecked Sendable {
    let options: ComposeOptions
    /// Who is shown where, frame by frame.
    let plan: ComposePlan
    var participants: [CallParticipant] { plan.participants }
    /// Per participant, its video tracks (by start) being decoded.
    let tracks: [[TrackFrames]]
    let painters: [TilePainter]
    let colorSpace: ColorSpace
    let background: YUVColor
    /// Encodes the composed frames and writes them with the call's sound, in step.
    let output: OutputStage
    var outputFile: AtomicOutput { output.muxer.output }
    var expectedFrames: Int? { options.frameCount }
    var expectedSeconds: Double? { Double(options.frameCount) / Double(options.fps) }
    var muxer: Muxer { output.muxer }
    let extraEffects: [any FrameEffect]
    let names: TileNames?
    var report: ComposeReport

    let composed = BoundedQueue<Frame>(capacity: 4)
    let canvases = FramePool(keepsBuffers: true)
    /// The plan's scene being shown; per canvas of the pool, the scene whose background it
    /// holds outside the tiles (the area no tile repaints), so it is painted once per scene.
    private var sceneShown = -1
    private var canvasScene: [ObjectIdentifier: Int] = [:]
    /// Whether a picture has been shown yet: the caller's effects (a contact sheet) see the frames from the first that shows someone.
    private var someoneShown = false
    let failure = Locked<ReplayError?>(nil)
    let framesDone = Atomic<Int>(0)

    init(options: ComposeOptions, extraEffects: [any FrameEffect]) throws(ReplayError) {
        self.options = options
        self.extraEffects = extraEffects
        let call = options.call
        // Who speaks when, if the `speaker` layout or the speaker's outline needs it.
        plan = try ComposePlan(options: options) { () throws(ReplayError) in
            if let measured = options.speakerActivity { return measured }
            guard options.layout == .speaker || options.highlightSpeaker else { return nil }
            return try SpeakerActivity.measure(call, from: options.from, to: options.end)
        }
        let width = plan.size.width, height = plan.size.height
        let participants = plan.participants
        let effects = try Self.streamEffects(options.streamEffects, call: call)

        let videoTracks = participants.reduce(0) { $0 + $1.videoTracks.count }
        // Many streams decode in parallel with each other: one thread each is enough then. One
        // stream takes the encoder's threads when they are set, as a render does.
        let decoderThreads = videoTracks > 1 ? 1 : options.encoder.threads
        var tracks: [[TrackFrames]] = []
        for participant in participants {
            var list: [TrackFrames] = []
            for (stream, track) in participant.videoTracks {
                var own = effects[stream.id]?.options
                own?.input = track.path.string
                if let clock = effects[stream.id]?.poseClock { own?.poses?.clockOffset = try call.poseClockOffset(clock, track: track) }
                own?.poses?.streamPlacement = call.placement(of: track)
                list.append(TrackFrames(stream: stream, track: track, effects: own, threads: decoderThreads, from: options.from,
                                        maxDecodeErrors: options.maxDecodeErrors))
            }
            tracks.append(list)
        }
        self.tracks = tracks
        colorSpace = ColorSpace(tag: AVCOL_SPC_UNSPECIFIED, fullRange: false, height: height)
        painters = try participants.map { [colorSpace] _ throws(ReplayError) in try TilePainter(canvas: colorSpace) }
        var backgroundColor = options.background
        if case .custom(let custom) = options.layout, let color = custom.background { backgroundColor = color }
        background = colorSpace.yuv(red: backgroundColor.red, green: backgroundColor.green, blue: backgroundColor.blue)
        names = options.names ? try TileNames(width: width, height: height, colorSpace: colorSpace, font: options.font?.string) : nil

        let file = try AtomicOutput(path: options.output, overwrite: options.overwrite, overwriteOption: "ComposeOptions.overwrite",
                                      inputs: options.inputFiles)
        let muxer = try Muxer(output: file, bitexact: options.encoder.deterministic)
        muxer.faststart = options.encoder.faststart
        let codec = options.encoder.codec ?? VideoCodec.defaultCodec(forOutput: options.output)
        let ignoredSettings = try options.encoder.check(for: codec)
        let codecID = avcodec_find_encoder_by_name(codec.encoderName)?.pointee.id ?? AV_CODEC_ID_NONE
        if !muxer.accepts(video: codecID, width: width, height: height) {
            throw .usage("\(options.output): a .\(URL(fileURLWithPath: options.output.string).pathExtension) file cannot hold \(codec.rawValue) video")
        }
        let timeBase = AVRational(num: 1, den: Int32(options.fps))
        let encoder = try Encoder(settings: options.encoder, codec: codec, width: width, height: height, timeBase: timeBase,
                              frameRate: AVRational(num: Int32(options.fps), den: 1), colorOf: nil, alpha: false,
                              globalHeader: muxer.needsGlobalHeader)
        let videoOut = try muxer.addStream(encoder: encoder)
        // The call's sound (every stream's, at its call time from `from`, 48 kHz, summed, clipped),
        // written by the encoding thread in step with the pictures.
        let sound = call.streams.contains(where: \.hasAudio)
            ? try CallSoundTrack(call: call, from: options.from, to: options.end, muxer: muxer) : nil
        try muxer.writeHeader()
        // Each frame's sound is written up to the frame's end.
        output = OutputStage(encoder: encoder, muxer: muxer, videoStream: videoOut, sound: sound,
                             soundEnd: { [fps = options.fps] pts in Double(pts + 1) / Double(fps) })

        report = ComposeReport(input: call.source, output: .init(
            path: options.output, container: muxer.formatName, codec: codec.encoderName, width: width, height: height,
            pixelFormat: String(cString: av_get_pix_fmt_name(encoder.pixelFormat)), bytes: 0, copiedStreams: 0),
            layout: options.layout.name, fps: options.fps, from: options.from, to: options.end)
        report.audioOnly = call.streams.filter { $0.hasAudio && !$0.hasVideo }.map(\.id)
        report.warnings += ignoredSettings + plan.warnings
        report.layoutChanges = plan.layoutChanges
    }

    /// A job's `streams:` keyed by stream id: unknown keys are bad input naming the key and the ids.
    static func streamEffects(_ byKey: [String: ComposeOptions.StreamEffects], call: Call) throws(ReplayError)
        -> [String: ComposeOptions.StreamEffects] {
        var byID: [String: ComposeOptions.StreamEffects] = [:]
        for key in byKey.keys.sorted() {
            let stream: CallStream
            do { stream = try call.stream(key) } catch {
                throw .badInput("streams: '\(key)': \(error.message)")
            }
            guard stream.hasVideo else { throw .badInput("streams: '\(key)': stream \(stream.id) has no video for effects") }
            guard byID[stream.id] == nil else { throw .badInput("streams: '\(key)': stream \(stream.id) is given twice") }
            byID[stream.id] = byKey[key]
        }
        return byID
    }

    // MARK: Running

    /// Composes every output frame on this thread while a second thread encodes them.
    func run(progress: (Int) throws(ReplayError) -> Void) throws(ReplayError) {
        let encoding = DispatchGroup()
        encoding.enter()
        JobThread.start { [self] in
            do throws(ReplayError) { try encodeAll() } catch { fail(error) }
            encoding.leave()
        }
        do {
            try composeAll(progress: progress)
            composed.close()
        } catch {
            fail(error)
        }
        while encoding.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            do throws(ReplayError) { try progress(framesDone.load(ordering: .relaxed)) } catch { fail(error) }
        }
        for list in tracks { for track in list { track.stop() } }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private func fail(_ error: ReplayError) {
        failure.withLock { if $0 == nil { $0 = error } }
        composed.cancel()
    }

    private var failed: Bool { failure.withLock { $0 != nil } }

    private func composeAll(progress: (Int) throws(ReplayError) -> Void) throws(ReplayError) {
        var sceneIndex = 0
        var stopped = Set<ObjectIdentifier>()
        for k in 0..<plan.frameCount {
            guard !failed else { return }
            let t = options.callTime(ofFrame: k)
            // Tracks that have left are stopped, which frees their pictures and closes their files;
            // those about to join are opened, so no more decoders are open than tracks play at once.
            for list in tracks {
                for track in list {
                    if track.track.stop <= t {
                        if stopped.insert(ObjectIdentifier(track)).inserted { track.stop() }
                    } else if track.track.start - TrackFrames.openAhead <= t {
                        track.start()
                    }
                }
            }
            while sceneIndex + 1 < plan.scenes.count && plan.scenes[sceneIndex + 1].firstFrame <= k { sceneIndex += 1 }
            let scene = plan.scenes[sceneIndex]
            sceneShown = sceneIndex
            let canvas: Frame
            do { canvas = try canvases.take(width: plan.size.width, height: plan.size.height, format: AV_PIX_FMT_YUV420P) } catch {
                throw .processing("\(options.output): \(error)")
            }
            do {
                canvas.pts = Int64(k)
                canvas.duration = 1
                try paint(canvas, tiles: scene.tiles, shown: scene.shown, at: t, frame: k)
            } catch {
                canvas.recycle()
                throw error
            }
            guard composed.put(canvas) else {
                canvas.recycle()
                return
            }
            try progress(framesDone.load(ordering: .relaxed))
        }
    }

    /// Paints output frame `k` (call time `t`): background, then each tile's picture, names, and
    /// the caller's effects.
    private func paint(_ canvas: Frame, tiles: [CallLayout.Tile], shown: [Int], at t: Double, frame k: Int) throws(ReplayError) {
        guard var image = canvas.yuvImage else { throw .processing("composed picture has no planes") }
        image.colorSpace = colorSpace
        canvas.pointer.pointee.color_range = AVCOL_RANGE_MPEG
        // Every tile is repainted whole below (picture and bars), so the rest of a canvas that
        // already shows this layout's background is left as it is; effects may paint anywhere.
        if !extraEffects.isEmpty || canvasScene.updateValue(sceneShown, forKey: ObjectIdentifier(canvas)) != sceneShown {
            image.fill(background)
        }
        var labels: [TileNames.Label] = []
        for tile in tiles {
            let participant = shown[tile.participant]
            // Tiles may overlap (pip, layout files): a later one hides what is under it.
            guard let (track, picture) = try latestPicture(of: participant, at: t) else {
                TilePainter.fill(tile.rect, on: image, with: background)
                labels.append(TileNames.Label(name: participants[participant].name, picture: tile.rect))
                continue
            }
            someoneShown = true
            let placed = try painters[participant].paint(picture, of: ObjectIdentifier(track), in: tile.rect, fit: tile.fit ?? options.tileFit,
                                                         effects: track.drawingEffects, onto: image, background: background,
                                                         source: "\(track.track.name) (stream \(track.stream.id))")
            labels.append(TileNames.Label(name: participants[participant].name, picture: placed ?? tile.rect))
        }
        // The outline hugs the speaker's picture where it sits in its tile (a portrait picture in
        // a wide cell is outlined, not the bars beside it).
        if options.highlightSpeaker, let speaking = plan.activity?.loudest(at: t),
           let index = tiles.lastIndex(where: { participants[shown[$0.participant]].streams.contains { $0.id == speaking } }) {
            outline(labels[index].picture, on: image)
        }
        names?.composite(labels, into: image)
        if !extraEffects.isEmpty && someoneShown {
            let time = FrameTime(index: k, pts: Int64(k), seconds: Double(k) / Double(options.fps), streamSeconds: t,
                                 duration: 1 / Double(options.fps))
            for effect in extraEffects { try effect.apply(to: image, at: time) }
        }
    }

    /// The speaker's outline: a yellow border along the inside of `rect`, a 40th of its smaller
    /// side thick (at least 4 pixels, even, so it covers whole chroma samples where the tile does).
    private func outline(_ rect: PixelRect, on image: YUVImage) {
        let thickness = max(4, min(rect.width, rect.height) / 40 & ~1)
        let inside = PixelRect(x: rect.x + thickness, y: rect.y + thickness, width: max(0, rect.width - 2 * thickness),
                               height: max(0, rect.height - 2 * thickness))
        TilePainter.fill(rect, except: inside, on: image, with: colorSpace.yuv(red: 255, green: 212, blue: 0))
    }

    /// The picture a participant shows at call time `t`: of its tracks active then (the latest
    /// to start wins), the latest picture due by `t`; `nil` before its first.
    private func latestPicture(of participant: Int, at t: Double) throws(ReplayError) -> (TrackFrames, CallFrame)? {
        var latest: (TrackFrames, CallFrame)?
        for track in tracks[participant] where track.track.start <= t && t < track.track.stop {
            if let picture = try track.advance(to: t) { latest = (track, picture) }
        }
        return latest
    }

    /// Encodes the composed frames, and the sound up to the end of each, in step.
    private func encodeAll() throws(ReplayError) {
        try output.run(frames: composed, failed: { failed }, written: { framesDone.add(1, ordering: .relaxed) })
    }

    // MARK: Finishing

    func finish() throws(ReplayError) -> ComposeReport {
        try muxer.finish(commit: false)
        report.framesEncoded = framesDone.load(ordering: .relaxed)
        report.output.bytes = (try? FileManager.default.attributesOfItem(atPath: muxer.output.temporaryPath.string)[.size] as? Int64) ?? 0
        for (participant, list) in zip(participants, tracks) {
            var entry = ComposeReport.Participant(name: participant.name, streams: participant.streams.map(\.id))
            for track in list {
                let counts = track.counters.counts
                entry.framesDecoded += counts.decoded
                entry.decodeErrors += counts.decodeErrors
                entry.resolutionChanges += counts.resolutionChanges
                entry.framesWithBadTimestamps += counts.badTimestamps
                entry.effects.add(track.effectCounts)
                if counts.decodeErrors > 0 {
                    report.warnings.append("stream \(track.stream.id) (\(track.stream.name), \(track.track.name)): \(counts.decodeErrors) decode errors "
                                           + "concealed or skipped; the first: \(counts.damage.first?.message ?? "unknown")")
                }
                if let cutShort = counts.cutShort {
                    entry.decodeErrors += 1
                    report.warnings.append("stream \(track.stream.id) (\(track.stream.name), \(track.track.name)): \(cutShort) (its last picture is held until its stop)")
                }
                if counts.badTimestamps > 0 {
                    report.warnings.append("stream \(track.stream.id) (\(track.track.name)): \(counts.badTimestamps) pictures with non-increasing timestamps dropped")
                }
            }
            report.participants.append(entry)
        }
        return report
    }
}

extension CallLayout {
    /// How reports name it.
    var name: String {
        switch self {
        case .grid: "grid"
        case .focus(let key): "focus \(key)"
        case .pip(let key): "pip \(key)"
        case .custom(let layout): layout.file.string
        case .speaker: "speaker"
        }
    }
}
