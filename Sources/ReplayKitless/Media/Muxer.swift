import CFFmpeg
import Foundation

extension EncoderSettings {
    /// The file extensions of the containers the library writes (MP4, QuickTime, Matroska, WebM): an
    /// output's extension chooses its container, so an output is named with one of these.
    public static let containerExtensions = ["mp4", "mov", "mkv", "webm"]
}

/// A container being written; owns its `AVFormatContext` and its ``AtomicOutput``.
/// One thread writes it: a pipeline's ``OutputStage`` (which takes copied packets over from the
/// source's thread), or a fixture writer; it takes no lock.
package final class Muxer: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVFormatContext>
    let output: AtomicOutput
    private var sourceTimeBases: [AVRational] = []
    /// Per stream, added to its packets' timestamps (in its source time base); see ``delayAll(by:in:)``.
    private var delays: [Int64] = []
    private var headerWritten = false
    /// Written as fragmented MP4, because the output cannot seek (a pipe).
    private(set) var isFragmented = false
    private var finished = false
    /// MP4/MOV: write the index (`moov`) before the media (``EncoderSettings/faststart``).
    var faststart = false
    /// The thread that writes packets, checked in debug builds (the suite runs them): a second
    /// writer would race on the context, which has no lock.
    private var writer: pthread_t?

    /// The containers written: ones that keep every frame's own timestamp (AVI, for one, would
    /// re-time variable frame rates) and have been tested with every stream kind copied.
    /// (``EncoderSettings/containerExtensions`` name them.)
    static let supportedFormats: Set<String> = ["mp4", "mov", "matroska", "webm"]

    /// Prepares a container for `output`; the format comes from the final path's extension.
    init(output: AtomicOutput, bitexact: Bool) throws(ReplayError) {
        self.output = output
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        let status = avformat_alloc_output_context2(&context, nil, nil, output.finalPath.string)
        guard status >= 0, let context, Self.supportedFormats.contains(String(cString: context.pointee.oformat.pointee.name)) else {
            avformat_free_context(context)
            if output.finalPath == "-" {
                throw .usage("-: standard output has no name to choose a container by: write to a named pipe instead (mkfifo out.mkv)")
            }
            throw .usage("\(output.finalPath): unsupported output format (use .mp4, .mov, .mkv or .webm)")
        }
        self.context = context
        if bitexact { context.pointee.flags |= AVFMT_FLAG_BITEXACT }
    }

    deinit {
        if headerWritten && !finished { av_write_trailer(context) }
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    var formatName: String { String(cString: context.pointee.oformat.pointee.name) }
    /// MP4 or MOV: the containers that store a display matrix and Apple's codec tags.
    var isMP4Family: Bool { ["mp4", "mov"].contains(formatName) }
    /// Whether a stream's timestamps must strictly increase (else, may repeat).
    var needsIncreasingTimestamps: Bool { context.pointee.oformat.pointee.flags & AVFMT_TS_NONSTRICT == 0 }
    var needsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// A four-character code as FFmpeg stores it in `codec_tag` (`MKTAG`: first character lowest).
    static func codecTag(_ fourCC: String) -> UInt32 {
        fourCC.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Whether this container can hold a stream with `parameters`: FFmpeg's codec tables, then a
    /// trial of the muxer's own checks on that stream alone (MOV's tables list VP9 and Opus, which
    /// only its MP4 mode takes; caught here, such a stream would fail the header after the fact).
    func accepts(_ parameters: UnsafePointer<AVCodecParameters>, disposition: Int32 = 0) -> Bool {
        let format = context.pointee.oformat
        // (Attachments and cover pictures are not in the codec tables of the containers that take them.)
        let special = parameters.pointee.codec_type == AVMEDIA_TYPE_ATTACHMENT || disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        guard special || avformat_query_codec(format, parameters.pointee.codec_id, FF_COMPLIANCE_NORMAL) == 1 else { return false }
        var trial: UnsafeMutablePointer<AVFormatContext>? = nil
        guard avformat_alloc_output_context2(&trial, format, nil, nil) >= 0, let trial else { return false }
        defer {
            if trial.pointee.pb != nil {
                var buffer: UnsafeMutablePointer<UInt8>? = nil
                _ = avio_close_dyn_buf(trial.pointee.pb, &buffer)
                av_free(buffer)
                trial.pointee.pb = nil
            }
            avformat_free_context(trial)
        }
        guard let stream = avformat_new_stream(trial, nil), avcodec_parameters_copy(stream.pointee.codecpar, parameters) >= 0,
              avio_open_dyn_buf(&trial.pointee.pb) >= 0 else { return false }
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = AVRational(num: 1, den: 90000)
        stream.pointee.disposition = disposition
        return avformat_init_output(trial, nil) >= 0
    }

    /// Whether this container can hold video of `codec` (a stream of it, as an encoder would describe it).
    func accepts(video codec: AVCodecID, width: Int, height: Int) -> Bool {
        guard let parameters = avcodec_parameters_alloc() else { return false }
        defer { var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters; avcodec_parameters_free(&owned) }
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointee.codec_id = codec
        parameters.pointee.width = Int32(width)
        parameters.pointee.height = Int32(height)
        return accepts(parameters)
    }

    /// Whether this container can hold sound of `codec` (as its encoder describes it).
    func accepts(audio codec: AudioCodec) -> Bool {
        guard let parameters = avcodec_parameters_alloc() else { return false }
        defer { var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters; avcodec_parameters_free(&owned) }
        parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = codec == .opus ? AV_CODEC_ID_OPUS : AV_CODEC_ID_AAC
        parameters.pointee.sample_rate = 48000
        av_channel_layout_default(&parameters.pointee.ch_layout, 2)
        return accepts(parameters)
    }

    /// Adds the encoder's stream; returns its index.
    func addStream(encoder: Encoder, rotation: Int = 0, mirrored: Bool = false) throws(ReplayError) -> Int {
        guard let stream = avformat_new_stream(context, nil) else { throw .processing("avformat_new_stream: out of memory") }
        do {
            try ffmpeg("avcodec_parameters_from_context", avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context))
        } catch { throw .processing("\(output.finalPath): \(error)") }
        stream.pointee.time_base = encoder.timeBase
        // Apple's players take HEVC in MP4/MOV only as 'hvc1' (parameter sets in the header, which
        // the encoder's global header gives), not FFmpeg's default 'hev1'.
        if encoder.context.pointee.codec_id == AV_CODEC_ID_HEVC, isMP4Family {
            stream.pointee.codecpar.pointee.codec_tag = Self.codecTag("hvc1")
        }
        // Non-square pixels also need the container's word (Matroska's display size); square ones are the default.
        let sar = encoder.context.pointee.sample_aspect_ratio
        if sar.num != sar.den { stream.pointee.sample_aspect_ratio = sar }
        if rotation != 0 || mirrored, let data = fx_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 36) {
            let matrix = DisplayMatrix.matrix(rotation: rotation, mirrored: mirrored)
            matrix.withUnsafeBytes { data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: 36) }
        }
        sourceTimeBases.append(encoder.timeBase)
        return Int(stream.pointee.index)
    }

    /// Adds a stream whose packets are copied untouched from `source`; `nil` when the container can't hold it.
    func addCopiedStream(from demuxer: Demuxer, stream index: Int) throws(ReplayError) -> Int? {
        let source = demuxer.stream(index)
        guard accepts(source.pointee.codecpar, disposition: source.pointee.disposition) else { return nil }
        guard let stream = avformat_new_stream(context, nil) else { throw .processing("avformat_new_stream: out of memory") }
        do {
            try ffmpeg("avcodec_parameters_copy", avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar))
            try ffmpeg("side data copy", fx_stream_copy_side_data(stream, source))
        } catch { throw .processing("\(output.finalPath): \(error)") }
        // Let the muxer pick its codec tag: the source container's tag may mean nothing here.
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = source.pointee.time_base
        stream.pointee.disposition = source.pointee.disposition
        // (An attachment is its tags, file name and MIME type, and its bytes, the extradata.)
        av_dict_copy(&stream.pointee.metadata, source.pointee.metadata, 0)
        sourceTimeBases.append(source.pointee.time_base)
        return Int(stream.pointee.index)
    }

    /// Gives output stream `index` the tags of `source` (language, title, handler, timecode…), as
    /// ffmpeg does, but for `encoder`: the stream was encoded anew. MP4/MOV make a timecode track
    /// of a video's `timecode` tag, Matroska a TIMECODE tag.
    func copyTags(from source: UnsafeMutablePointer<AVStream>, to index: Int) {
        let stream = context.pointee.streams[index]!
        av_dict_copy(&stream.pointee.metadata, source.pointee.metadata, 0)
        av_dict_set(&stream.pointee.metadata, "encoder", nil, 0)
    }

    /// Records the time base of packets for a stream added directly with `avformat_new_stream`.
    func registerTimeBase(_ timeBase: AVRational) {
        sourceTimeBases.append(timeBase)
    }

    /// What a write error most likely means: the disk for I/O errors, else the packet itself (a
    /// container refuses timestamps it cannot store, such as gaps of years in MP4's 32-bit durations).
    private static func hint(_ status: Int32) -> String {
        let hint = status < 0 ? AtomicOutput.hint(-status) : ""
        return hint.isEmpty ? " (the container refused the packet: its timestamps?)" : hint
    }

    /// Copies the file-level metadata (title, creation time, …) of `demuxer`'s input.
    func copyMetadata(from demuxer: Demuxer) {
        av_dict_copy(&context.pointee.metadata, demuxer.context.pointee.metadata, 0)
    }

    /// Gives the first stream of each kind the default disposition when none of its kind has it
    /// (players pick default tracks; Matroska otherwise marks every track not default).
    private func markDefaultStreams() {
        let streams = (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
        for kind in Set(streams.map { $0.pointee.codecpar.pointee.codec_type.rawValue }) {
            let ofKind = streams.filter { $0.pointee.codecpar.pointee.codec_type.rawValue == kind }
            if !ofKind.contains(where: { $0.pointee.disposition & AV_DISPOSITION_DEFAULT != 0 }) {
                ofKind[0].pointee.disposition |= AV_DISPOSITION_DEFAULT
            }
        }
    }

    /// Moves every stream added so far later by `ticks` of `timeBase`, all together (each rounded to
    /// its own time base), before it is written.
    func delayAll(by ticks: Int64, in timeBase: AVRational) {
        delays = sourceTimeBases.map { av_rescale_q(ticks, timeBase, $0) }
    }

    /// Opens the temporary file and writes the container header. In MP4/MOV, a stream that starts
    /// late gets an edit list in the movie's time scale: `movieTimeScale` (rather than 1/1000 s)
    /// keeps such a start exact.
    func writeHeader(movieTimeScale: Int32? = nil) throws(ReplayError) {
        markDefaultStreams()
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            let status = avio_open(&context.pointee.pb, output.temporaryPath.string, AVIO_FLAG_WRITE)
            guard status >= 0 else { throw .processing("\(output.finalPath): cannot create output: \(ffmpegErrorText(status))") }
        }
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        // Keep the input's timestamps, including a non-zero start, exactly as they are: containers
        // that can store negative timestamps (MP4/MOV edit lists) are not shifted.
        av_dict_set(&options, "avoid_negative_ts", "auto", 0)
        if isMP4Family, let movieTimeScale { av_dict_set(&options, "movie_timescale", String(movieTimeScale), 0) }
        // A pipe cannot take the index MP4 writes at the end, back at the start: fragments carry
        // their own (players and ffmpeg read them as they come).
        if isMP4Family, let pb = context.pointee.pb, pb.pointee.seekable == 0 {
            av_dict_set(&options, "movflags", "frag_keyframe+delay_moov+default_base_moof", 0)
            isFragmented = true
        } else if isMP4Family && faststart {
            // The index first: a player over the web starts before the download ends (a second
            // pass at the end moves it, in the temporary file).
            av_dict_set(&options, "movflags", "+faststart", 0)
            // That pass reopens the file by the context's name: the temporary file's, not the final one.
            av_free(context.pointee.url)
            context.pointee.url = av_strdup(output.temporaryPath.string)
        }
        let status = avformat_write_header(context, &options)
        guard status >= 0 else { throw .processing("\(output.finalPath): cannot write header: \(ffmpegErrorText(status))") }
        headerWritten = true
    }

    /// Writes a packet whose timestamps are in the time base its stream was added with.
    func write(_ packet: Packet, stream index: Int) throws(ReplayError) {
        assert(isTheOneWriter(), "\(output.finalPath): packets written from a second thread")
        let stream = context.pointee.streams[index]!
        packet.pointer.pointee.stream_index = Int32(index)
        if index < delays.count, delays[index] != 0 {
            if packet.pointer.pointee.pts != noPTS { packet.pointer.pointee.pts += delays[index] }
            if packet.pointer.pointee.dts != noPTS { packet.pointer.pointee.dts += delays[index] }
        }
        packet.rescale(from: sourceTimeBases[index], to: stream.pointee.time_base)
        packet.pointer.pointee.pos = -1
        let status = av_interleaved_write_frame(context, packet.pointer)
        guard status >= 0 else {
            throw .processing("\(output.finalPath): write failed: \(ffmpegErrorText(status))\(Self.hint(status))")
        }
    }

    /// Whether the calling thread is the first that wrote a packet (it becomes so if none has).
    private func isTheOneWriter() -> Bool {
        let current = pthread_self()
        if writer == nil { writer = current }
        return writer.map { pthread_equal($0, current) != 0 } ?? true
    }

    /// Writes the trailer, closes the file and (with `commit`) moves it into place.
    func finish(commit: Bool = true) throws(ReplayError) {
        finished = true
        let status = av_write_trailer(context)
        guard status >= 0 else { throw .processing("\(output.finalPath): cannot finish: \(ffmpegErrorText(status))") }
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            let closeStatus = avio_closep(&context.pointee.pb)
            guard closeStatus >= 0 else {
                throw .processing("\(output.finalPath): cannot close: \(ffmpegErrorText(closeStatus))\(Self.hint(closeStatus))")
            }
        }
        if commit { try output.commit() }
    }
}
