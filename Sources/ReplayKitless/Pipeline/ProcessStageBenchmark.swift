import CFFmpeg
import Foundation

/// The process stage alone, for `fxbench process`: the effects of one or more render setups
/// applied one after another to frames decoded beforehand, exactly as the renderer applies them
/// (each frame prepared by a lane's ``FramePreparation``, which copies the decoded picture for the
/// effects; in-order steps on the calling thread, per-frame steps on `threads` lanes), without
/// decoding or encoding, so frames per second measure the effects and nothing else.
package enum ProcessStageBenchmark {
    package struct Measurement: Sendable {
        package let threads: Int
        package let frames: Int
        /// Wall-clock seconds.
        package let seconds: Double
        /// User + system CPU seconds of the whole process over the run.
        package let cpuSeconds: Double
        package var framesPerSecond: Double { Double(frames) / seconds }
    }

    /// Frames of a clip decoded once, at their own size, in 4:2:0, with their times.
    package final class Clip: @unchecked Sendable {
        let pictures: [Frame]
        let times: [FrameTime]
        let size: PictureSize
        /// The colour space of the first picture, the one effects are told.
        let colorSpace: ColorSpace

        /// Decodes the first `frames` frames of `path`.
        package init(path: String, frames: Int) throws(ReplayError) {
            let reader = try VideoFrameReader(url: path)
            var pictures: [Frame] = [], times: [FrameTime] = []
            var first: Int64?
            var colorSpace: ColorSpace?
            while pictures.count < frames, let frame = try reader.next() {
                let image = try reader.image(of: frame)
                let copy: Frame
                do { copy = try Frame(width: image.width, height: image.height, format: AV_PIX_FMT_YUV420P) } catch {
                    throw .processing("\(path): \(error)")
                }
                copy.yuvImage?.copy(from: image)
                copy.pts = frame.pts
                pictures.append(copy)
                colorSpace = colorSpace ?? image.colorSpace
                let start = first ?? frame.pts
                first = start
                times.append(FrameTime(index: times.count, pts: frame.pts, seconds: reader.stream.timeBase.seconds(frame.pts - start),
                                       streamSeconds: reader.stream.timeBase.seconds(frame.pts),
                                       duration: reader.stream.timeBase.seconds(frame.duration)))
            }
            guard let picture = pictures.first, let colorSpace else { throw .badInput("\(path): no picture could be decoded") }
            self.pictures = pictures
            self.times = times
            self.colorSpace = colorSpace
            size = PictureSize(width: picture.width, height: picture.height)
        }

        package var count: Int { pictures.count }
    }

    /// Applies the effects every setup in `setups` asks for (all on the clip's input, in the order
    /// given) to every frame of `clip`, on `threads` lanes started at once, to measure what they
    /// give (a render adds lanes only while they pay); 1: all on the calling thread, as the renderer
    /// does with one process thread.
    package static func measure(_ setups: [RenderOptions], clip: Clip, threads: Int) throws(ReplayError) -> Measurement {
        let effects = try effects(setups, size: clip.size)
        let lanes = max(1, threads), slots = lanes == 1 ? 1 : lanes * FramesInFlight<Int, Int>.slotsPerLane
        for effect in effects { try effect.reserve(slots: slots, lanes: lanes, bands: 1) }
        let buffers = FramePool(keepsBuffers: true)  // (shared by the lanes, as the render's are)
        let preparations = try (0..<lanes).map { _ throws(ReplayError) in
            try FramePreparation(working: .init(pixelFormat: AV_PIX_FMT_YUV420P), buffers: buffers)
        }
        let geometry = FramePreparation.Geometry(orientation: .upright, size: clip.size)
        let frames = (0..<slots).map { EffectFrame(slot: $0, time: clip.times[0], size: clip.size) }
        /// The frame prepared as the renderer prepares it (a copy of the decoded picture, with every
        /// effect's per-frame step), then handed back.
        func process(_ index: Int, slot: Int, lane: Int) throws(ReplayError) {
            let prepared = try preparations[lane].prepare(clip.pictures[index], geometry, colorSpace: clip.colorSpace, drawsEffects: true,
                                                          effects: { image throws(ReplayError) in
                                                              for effect in effects { try effect.process(image, frames[slot], lane: lane) }
                                                          }, source: "frame \(index)")
            prepared.recycle()
        }
        let cpuBefore = cpuSeconds(), started = ContinuousClock.now
        if lanes == 1 {
            for index in 0..<clip.count {
                frames[0].time = clip.times[index]
                for effect in effects { try effect.sequence(frames[0]) }
                try process(index, slot: 0, lane: 0)
            }
        } else {
            let failure = Locked<ReplayError?>(nil)
            let pool = FramesInFlight<Int, Int>(lanes: lanes, startingLanes: lanes, work: { index, slot, lane throws(ReplayError) in
                try process(index, slot: slot, lane: lane)
                return index
            }, deliver: { _ in true }, discard: { _ in }, fail: { error in failure.withLock { $0 = error } })
            for index in 0..<clip.count {
                guard let slot = pool.takeSlot() else { break }
                frames[slot].time = clip.times[index]
                do throws(ReplayError) {
                    for effect in effects { try effect.sequence(frames[slot]) }
                } catch {
                    pool.submit(.failure(error), slot: slot)
                    break
                }
                pool.submit(.success(index), slot: slot)
            }
            pool.finish()
            if let error = failure.withLock({ $0 }) { throw error }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return Measurement(threads: lanes, frames: clip.count, seconds: seconds, cpuSeconds: cpuSeconds() - cpuBefore)
    }

    /// The effects of every setup, made as the renderer makes them.
    private static func effects(_ setups: [RenderOptions], size: PictureSize) throws(ReplayError) -> [any SplitFrameEffect] {
        var all: [any SplitFrameEffect] = []
        for options in setups {
            let demuxer = try Demuxer(url: options.input)
            guard let video = demuxer.bestVideoStream else { throw .badInput("\(options.input): no video stream") }
            let poses = try options.poses.map { (settings: PoseSettings) throws(ReplayError) in
                try FramePoses(settings: settings, input: options.input)
            }
            let colorSpace = ColorSpace(codecParameters: demuxer.stream(video.index).pointee.codecpar.pointee, height: size.height)
            let context = EffectContext(options: options, demuxer: demuxer, videoStream: video, outputSize: size,
                                        colorSpace: colorSpace, poses: poses)
            for effect in try ReplayKitless.makeEffects(for: context) {
                guard let split = effect as? any SplitFrameEffect else { throw .processing("\(effect.name): not a split effect") }
                all.append(split)
            }
        }
        return all
    }

    /// User + system CPU seconds of this process so far.
    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
