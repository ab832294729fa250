import CFFmpeg

/// Converts decoded audio frames to float planes at another rate (libswresample); owns its
/// `SwrContext`. Opened for the rate, sample format and channel count of a first frame: a frame
/// that differs (``accepts(_:)`` is false) needs a new resampler.
///
/// Output is aligned with input: the first output sample is at the time of the first input
/// sample, and output sample `k` at `k / outputRate` after it (the filter's delay is held back
/// inside and comes out with ``flush(into:capacity:)``), which is what lets a caller place the
/// output by the input's timestamp alone.
final class Resampler {
    let outputRate: Int
    let outputChannels: Int
    private let context: OpaquePointer
    private let inputRate: Int32
    private let inputFormat: Int32
    private let inputChannels: Int32

    /// - Parameter outputChannels: 1 or 2 (more input channels are downmixed, as FFmpeg does).
    init(like frame: Frame, outputRate: Int, outputChannels: Int, source: String) throws(ReplayError) {
        guard let context = fx_swr_open(frame.pointer, Int32(outputRate), Int32(outputChannels)) else {
            let f = frame.pointer.pointee
            throw .badInput("\(source): cannot resample audio of \(f.sample_rate) Hz, \(fx_frame_channels(frame.pointer)) channels, format \(f.format)")
        }
        self.context = context
        self.outputRate = outputRate
        self.outputChannels = outputChannels
        inputRate = frame.pointer.pointee.sample_rate
        inputFormat = frame.pointer.pointee.format
        inputChannels = fx_frame_channels(frame.pointer)
    }

    deinit { fx_swr_free(context) }

    /// Whether `frame` has the rate, format and channel count this resampler was opened for.
    func accepts(_ frame: Frame) -> Bool {
        fx_swr_matches(frame.pointer, inputRate, inputFormat, inputChannels) != 0
    }

    /// An upper bound of the samples converting `inputSamples` more can give.
    func outputBound(forInput inputSamples: Int) -> Int {
        max(0, Int(fx_swr_out_samples(context, Int32(inputSamples))))
    }

    /// Converts `frame`'s samples into `planes` (room for `capacity` each); returns how many were written.
    func convert(_ frame: Frame, into planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>, capacity: Int) throws(ReplayError) -> Int {
        try run(frame.pointer, planes, capacity)
    }

    /// Writes what the filter still holds (at the end of the input, or before a gap).
    func flush(into planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>, capacity: Int) throws(ReplayError) -> Int {
        try run(nil, planes, capacity)
    }

    private func run(_ frame: UnsafePointer<AVFrame>?, _ planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>,
                     _ capacity: Int) throws(ReplayError) -> Int {
        let written = fx_swr_convert(context, planes, Int32(capacity), frame)
        guard written >= 0 else { throw .processing("resampling: \(ffmpegErrorText(written))") }
        return Int(written)
    }
}
