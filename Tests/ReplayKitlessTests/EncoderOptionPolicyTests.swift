import Foundation
import Testing
@testable import FxreplayBatch
@testable import ReplayKitless

/// The encoder-option allow-list (issue #33), without an encoder: what is split is what FFmpeg and
/// x264/x265 read, and what names a file, starts a pass, logs or raises the threads is refused.
@Suite struct EncoderOptionPolicyTests {
    private func refusal(_ key: String, _ value: String, _ codec: VideoCodec = .h264) -> ReplayError? {
        do { try EncoderOptionPolicy.check(key: key, value: value, codec: codec) } catch { return error }
        return nil
    }

    /// Lists split as av_dict_parse_string + av_get_token do (worked out from their rules: blanks
    /// around a token dropped, `\` escapes, '…' quotes, a key runs to `=` even across `:`).
    @Test func listsSplitAsFFmpegSplitsThem() {
        func pairs(_ text: String) -> [String]? { EncoderOptionPolicy.dictionaryEntries(text)?.map { "\($0.key)|\($0.value)" } }
        #expect(pairs("crf=20:bframes=0") == ["crf|20", "bframes|0"])
        #expect(pairs(" crf = 20 : ref=3") == ["crf|20", "ref|3"])
        #expect(pairs("deblock='-1:-1':ref=3") == ["deblock|-1:-1", "ref|3"])
        #expect(pairs(#"zones=0,10,q=30\:20,30,q=40"#) == ["zones|0,10,q=30:20,30,q=40"])
        #expect(pairs("a:dump-yuv=x") == ["a:dump-yuv|x"])
        #expect(pairs(#"key=value\ "#) == ["key|value "])
        #expect(pairs("") == [])
        #expect(pairs("crf") == nil)
        #expect(pairs("crf=") == nil)
        #expect(pairs("=20") == nil)
        #expect(EncoderOptionPolicy.x264optsEntries("bframes=0:no-cabac:ref=").map { "\($0.key)|\($0.value)" }
                == ["bframes|0", "no-cabac|1", "ref|1"])
    }

    /// Written back escaped, a list reads as the same entries: a user's list ending in `\` cannot
    /// swallow the log level fxreplay appends.
    @Test func escapedListsReadBackTheSame() {
        let entries = [(key: "zones", value: #"0,10,q=30:x\ 'y' "#), (key: "crf", value: "28\\")]
        let text = EncoderOptionPolicy.dictionaryText(entries + [("log-level", "error")])
        let back = EncoderOptionPolicy.dictionaryEntries(text)
        #expect(back?.map(\.key) == ["zones", "crf", "log-level"])
        #expect(back?.map(\.value) == [#"0,10,q=30:x\ 'y' "#, "28\\", "error"])
    }

    @Test func filesPassesAndLogsAreRefusedNamingTheKey() throws {
        for (key, value, codec, named) in [
            ("x264-params", "dump-yuv=/in.mp4", VideoCodec.h264, "dump-yuv"), ("x264-params", "nodump_yuv=1", .h264, "nodump_yuv"),
            ("x264-params", "crf=20:cqm=/tmp/m", .h264, "cqm"), ("x264opts", "stats=/x", .h264, "stats"),
            ("x264-params", "log=3", .h264, "log"), ("x264-params", "verbose=1", .h264, "verbose"),
            ("x264-params", "quiet=1", .h264, "quiet"), ("passlogfile", "/x", .h264, "passlogfile"), ("stats", "/x", .h264, "stats"),
            ("x265-params", "no-csv=/x", .hevc, "no-csv"), ("x265-params", "analysis_load=/x", .hevc, "analysis_load"),
            ("x265-params", "log-level=full", .hevc, "log-level"), ("x265-params", "pools=64", .hevc, "pools"),
            ("flags", "+pass1", .vp9, "pass1"), ("flags", "-pass2", .h264, "pass2"), ("flags", "+loop+pass1", .ffv1, "pass1"),
            ("flags", "512", .h264, "512"), ("flags", "pass1*1", .h264, "pass1*1"), ("flags", "loop", .h264, "+NAME"),
            ("flags", "-global_header", .h264, "global_header"), ("udu_sei", "0", .h264, "udu_sei"), ("debug", "mb_type", .h264, "debug"),
            ("ts-parameters", "ts_number_layers=2:file=/x", .vp9, "file"), ("nosuchkey", "1", .h264, "nosuchkey"),
            ("x265-params", "crf=28", .h264, "x265-params"),
        ] {
            let error = try #require(refusal(key, value, codec), "\(key)=\(value) passed")
            #expect(error.kind == .usage && error.message.contains(named), "\(key)=\(value): \(error.message)")
        }
    }

    @Test func threadsAreHeldToTheCaps() throws {
        for (key, value, codec) in [("threads", "100000", VideoCodec.h264), ("threads", "1025", .vp9), ("threads", "17", .hevc),
                                    ("threads", "-1", .h264), ("threads", "1e3", .h264), ("x264-params", "threads=5000", .h264),
                                    ("x264opts", "lookahead_threads=2000", .h264), ("x265-params", "frame-threads=17", .hevc)] {
            let error = try #require(refusal(key, value, codec), "\(key)=\(value) passed")
            #expect(error.message.contains("threads"), "\(error.message)")
        }
        #expect(refusal("threads", "1024", .h264) == nil)
        #expect(refusal("threads", "16", .hevc) == nil)
        #expect(refusal("x265-params", "frame-threads=4", .hevc) == nil)
    }

    /// Ordinary tuning passes, including the spellings the README and the tests use.
    @Test func ordinaryTuningPasses() {
        for (key, value, codec) in [
            ("bf", "0", VideoCodec.h264), ("aq-mode", "2", .h264), ("x264-params", "bframes=0", .h264),
            ("x264-params", "keyint=60:min-keyint=30:no-scenecut=1:ref=3:aq-strength=0.8:rc-lookahead=20:vbv-maxrate=2000:vbv-bufsize=4000",
             .h264),
            ("x264-params", "psy-rd='1.0:0.15':deblock=-1,-1:crf=21", .h264), ("x264opts", "bframes=0:no-cabac", .h264),
            ("x265-params", "crf=28:bframes=4:no-sao=1:psy-rd=2", .hevc), ("row-mt", "0", .vp9), ("flags", "+loop", .h264),
            ("ts-parameters", "ts_number_layers=2:ts_target_bitrate=250,500", .vp8), ("g", "60", .ffv1), ("bits_per_mb", "800", .prores),
            ("maxrate", "2M", .h264), ("bufsize", "4M", .h264), ("tune", "film", .h264), ("preset", "slow", .hevc),
        ] {
            #expect(refusal(key, value, codec) == nil, "\(key)=\(value): \(refusal(key, value, codec)?.message ?? "")")
        }
    }

    /// encoder-opt in a job (whole-job or per stream) or a manifest row is refused naming the file
    /// and key; a stream's keys that belong to the composition are refused naming the stream.
    @Test func jobsAndRowsCannotSetEncoderOptions() throws {
        for text in ["encoder-opt: x264-params=dump-yuv=x\n", "streams:\n  Pat:\n    encoder-opt: threads=2\n"] {
            #expect(throws: ReplayError.self) { try JobSpec(parsing: text, path: "job.yaml") }
            do { _ = try JobSpec(parsing: text, path: "job.yaml") } catch {
                #expect(error.kind == .badInput && error.message.contains("job.yaml") && error.message.contains("encoder-opt"), "\(error.message)")
            }
        }
        for key in ["report", "preview", "crf"] {
            do {
                _ = try JobSpec(parsing: "streams:\n  Pat:\n    mirror: true\n    \(key): x\n", path: "job.yaml")
                Issue.record("\(key) under a stream passed")
            } catch {
                #expect(error.message.contains("job.yaml:4") && error.message.contains("streams.Pat.\(key)"), "\(error.message)")
            }
        }
        do {
            _ = try Manifest.parseCSV("input,encoder-opt\na.mp4,x264-params=dump-yuv=../b\n", file: "rows.csv")
            Issue.record("a manifest row set encoder-opt")
        } catch {
            #expect(error.message.contains("rows.csv:2") && error.message.contains("encoder-opt"), "\(error.message)")
        }
    }
}
