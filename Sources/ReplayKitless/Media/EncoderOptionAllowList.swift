/// The allow-lists ``EncoderOptionPolicy`` checks against, from FFmpeg 5.1's option tables
/// (`ffmpeg -h encoder=NAME`, libavcodec/options_table.h), x264's `x264_param_parse` and x265's
/// `x265_param_parse`. Each list holds rate control, speed and quality tuning only; what is left out
/// (a file name, a pass, a log, a thread pool, the SEI and headers fxreplay writes itself) is refused.
extension EncoderOptionPolicy {
    /// Keys refused with the reason said, whichever encoder has them: the common ways to reach a file.
    static let refusedKeys: [String: String] = [
        "passlogfile": "names a file (the multi-pass statistics); encoder options may not read or write files",
        "stats": "names a file (the multi-pass statistics); encoder options may not read or write files",
        "fastfirstpass": "is for multi-pass encodes; fxreplay encodes in one pass",
        "debug": "floods stderr with the encoder's debugging output",
        "udu_sei": "is fxreplay's own: it carries the pose SEI (formats.md §4)",
    ]

    /// AVCodecContext options any video encoder takes (`flags` and `threads` are checked further).
    static let genericKeys: Set<String> = [
        "b", "bt", "flags", "flags2", "g", "qcomp", "qblur", "qmin", "qmax", "qdiff", "bf", "b_qfactor", "b_qoffset",
        "maxrate", "minrate", "bufsize", "i_qfactor", "i_qoffset", "dct", "lumi_mask", "tcplx_mask", "scplx_mask", "p_mask",
        "dark_mask", "dia_size", "last_pred", "pre_dia_size", "subq", "me_range", "global_quality", "mbd", "rc_init_occupancy",
        "threads", "thread_type", "dc", "nssew", "profile", "level", "cmp", "subcmp", "mbcmp", "ildctcmp", "precmp", "mblmin",
        "mblmax", "bidir_refine", "keyint_min", "refs", "trellis", "mv0_threshold", "compression_level", "rc_max_vbv_use",
        "rc_min_vbv_use", "slices",
    ]

    /// `flags` names that change how pictures are coded (not `pass1`/`pass2`, nor the global header
    /// and bit-exactness fxreplay decides).
    static let codecFlags: Set<String> = ["mv4", "qpel", "loop", "qscale", "gray", "psnr", "ildct", "low_delay", "aic", "ilme", "cgop"]
    static let codecFlags2: Set<String> = ["fast"]

    /// The encoder's own options.
    static func privateKeys(_ codec: VideoCodec) -> Set<String> {
        switch codec {
        case .h264:
            [
                "preset", "tune", "profile", "level", "wpredp", "a53cc", "crf", "crf_max", "qp", "aq-mode", "aq-strength", "psy", "psy-rd",
                "rc-lookahead", "weightb", "weightp", "intra-refresh", "bluray-compat", "b-bias", "b-pyramid", "mixed-refs", "8x8dct",
                "fast-pskip", "aud", "mbtree", "deblock", "cplxblur", "partitions", "direct-pred", "slice-max-size", "nal-hrd",
                "avcintra-class", "me_method", "motion-est", "forced-idr", "coder", "b_strategy", "chromaoffset", "sc_threshold",
                "noise_reduction", "x264-params", "x264opts",
            ]
        case .hevc:
            ["crf", "qp", "forced-idr", "preset", "tune", "profile", "x265-params"]
        case .vp8, .vp9:
            [
                "lag-in-frames", "arnr-maxframes", "arnr-strength", "arnr-type", "tune", "deadline", "error-resilient", "max-intra-rate",
                "crf", "static-thresh", "drop-threshold", "noise-sensitivity", "undershoot-pct", "overshoot-pct", "ts-parameters",
                "auto-alt-ref", "cpu-used", "lossless", "tile-columns", "tile-rows", "frame-parallel", "aq-mode", "level", "row-mt",
                "tune-content", "corpus-complexity", "enable-tpl", "speed", "quality", "vp8flags", "arnr_max_frames", "arnr_strength",
                "arnr_type", "rc_lookahead", "sharpness", "min-gf-interval",
            ]
        case .prores:
            ["mbs_per_slice", "profile", "vendor", "bits_per_mb", "quant_mat", "alpha_bits"]
        case .ffv1:
            ["slicecrc", "coder", "context"]
        }
    }

    /// libvpx's `ts-parameters` keys (libvpxenc.c `vpx_ts_param_parse`): numbers only.
    static let vpxTemporalKeys: Set<String> = [
        "ts_number_layers", "ts_target_bitrate", "ts_rate_decimator", "ts_periodicity", "ts_layer_id", "ts_layering_mode",
    ]

    /// x264 and x265 parameters refused with the reason said, by their normalized name.
    static let refusedParameters: [String: String] = {
        var reasons: [String: String] = [:]
        for name in ["dump-yuv", "stats", "qpfile", "cqmfile", "cqm", "opencl-clbin", "csv", "analysis-save", "analysis-load",
                     "analysis-reuse-file", "scaling-list", "lambda-file", "zonefile", "dolby-vision-rpu", "recon", "dhdr10-info", "input",
                     "output", "nalu-file"] {
            reasons[name] = "names a file; encoder options may not read or write files"
        }
        for name in ["pass", "multi-pass-opt-analysis", "multi-pass-opt-distortion", "analysis-reuse-level", "analysis-save-reuse-level",
                     "analysis-load-reuse-level", "refine-intra", "refine-inter", "refine-mv", "refine-mv-type", "refine-ctu-distortion",
                     "slow-firstpass"] {
            reasons[name] = "starts a multi-pass encode or analysis I/O; fxreplay encodes in one pass"
        }
        for name in ["log", "log-level", "csv-log-level", "verbose", "quiet", "psnr", "ssim", "visualize", "progress"] {
            reasons[name] = "changes what the encoder logs; fxreplay keeps encoders quiet and reports itself"
        }
        for name in ["pools", "numa-pools", "opencl", "opencl-device", "asm", "cpu"] {
            reasons[name] = "changes the machine resources the encoder takes; give `EncoderSettings.threads` instead"
        }
        return reasons
    }()

    /// x264 parameters (`x264-params`, `x264opts`) as `x264_param_parse` names them, without a `no` prefix.
    static let x264Parameters: Set<String> = [
        "threads", "lookahead-threads", "sliced-threads", "sync-lookahead", "deterministic", "n-deterministic", "cpu-independent",
        "level", "bluray-compat", "avcintra-class", "avcintra-flavor", "overscan", "videoformat", "fullrange", "range", "colorprim",
        "transfer", "colormatrix", "chromaloc", "alternative-transfer", "mastering-display", "cll", "ref", "frameref", "keyint",
        "keyint-max", "min-keyint", "keyint-min", "scenecut", "intra-refresh", "bframes", "b-adapt", "b-bias", "b-pyramid",
        "open-gop", "deblock", "filter", "slice-max-size", "slice-max-mbs", "slice-min-mbs", "slices", "slices-max", "cabac",
        "cabac-idc", "interlaced", "tff", "bff", "constrained-intra", "pulldown", "fake-interlaced", "frame-packing", "analyse",
        "partitions", "8x8dct", "weightb", "weight-b", "weightp", "direct", "direct-pred", "chroma-qp-offset", "me", "merange",
        "me-range", "mvrange", "mv-range", "mvrange-thread", "subme", "subq", "psy-rd", "psy", "chroma-me", "mixed-refs", "trellis",
        "fast-pskip", "dct-decimate", "deadzone-inter", "deadzone-intra", "nr", "bitrate", "qp", "qp-constant", "crf", "crf-max",
        "rc-lookahead", "qpmin", "qp-min", "qpmax", "qp-max", "qpstep", "qp-step", "ratetol", "vbv-maxrate", "vbv-bufsize", "vbv-init",
        "ipratio", "pbratio", "qcomp", "qblur", "cplxblur", "aq-mode", "aq-strength", "mbtree", "zones", "aud", "nal-hrd", "filler",
        "pic-struct", "crop-rect", "stitchable", "annexb", "force-cfr", "repeat-headers",
    ]

    /// x265 parameters (`x265-params`) as `x265_param_parse` names them, without a `no` prefix.
    static let x265Parameters: Set<String> = [
        "frame-threads", "lookahead-threads", "wpp", "pmode", "pme", "ctu", "min-cu-size", "max-tu-size", "tu-intra-depth",
        "tu-inter-depth", "limit-tu", "me", "subme", "merange", "rect", "amp", "max-merge", "temporal-mvp", "early-skip", "rskip",
        "rskip-edge-threshold", "fast-intra", "rdpenalty", "tskip", "tskip-fast", "strong-intra-smoothing", "constrained-intra",
        "open-gop", "keyint", "min-keyint", "scenecut", "scenecut-bias", "hist-scenecut", "hist-threshold", "rc-lookahead",
        "lookahead-slices", "bframes", "bframe-bias", "b-adapt", "ref", "limit-refs", "limit-modes", "weightp", "weightb", "aq-mode",
        "aq-strength", "aq-motion", "qg-size", "cutree", "psy-rd", "psy-rdoq", "rdoq-level", "rd", "rd-refine", "signhide", "deblock",
        "sao", "sao-non-deblock", "selective-sao", "b-intra", "cbqpoffs", "crqpoffs", "bitrate", "crf", "crf-max", "crf-min", "qp",
        "vbv-maxrate", "vbv-bufsize", "vbv-init", "vbv-end", "vbv-end-fr-adj", "ipratio", "pbratio", "qcomp", "qpstep", "qpmin", "qpmax",
        "qblur", "cplxblur", "strict-cbr", "nr-intra", "nr-inter", "level-idc", "high-tier", "allow-non-conformance", "uhd-bd",
        "repeat-headers", "aud", "hrd", "info", "hash", "temporal-layers", "b-pyramid", "slices", "lossless", "cu-lossless", "fades",
        "radl", "max-ausize-factor", "dynamic-rd", "ssim-rd", "rc-grain", "const-vbv", "intra-refresh", "colorprim", "transfer",
        "colormatrix", "range", "videoformat", "chromaloc", "overscan", "min-luma", "max-luma", "log2-max-poc-lsb", "vui-timing-info",
        "vui-hrd-info", "opt-qp-pps", "opt-ref-list-length-pps", "opt-cu-delta-qp", "idr-recovery-sei", "single-sei", "hdr10",
        "hdr10-opt", "master-display", "max-cll", "zones", "splitrd-skip", "lowpass-dct",
    ]
}
