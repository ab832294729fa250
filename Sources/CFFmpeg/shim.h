// Everything Swift cannot import from FFmpeg's headers directly (function-like
// macros, compound literals) and every call whose shape changed between FFmpeg
// 5.1 (Debian 12) and 7.x, behind version gates so one Swift source builds on both.
#ifndef FXREPLAY_CFFMPEG_SHIM_H
#define FXREPLAY_CFFMPEG_SHIM_H

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/mathematics.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

static inline int fx_averror(int posix_error) { return AVERROR(posix_error); }
static inline int fx_averror_eof(void) { return AVERROR_EOF; }
static inline int fx_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int fx_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int64_t fx_nopts(void) { return AV_NOPTS_VALUE; }
static inline AVRational fx_time_base_q(void) { return AV_TIME_BASE_Q; }
static inline int fx_codec_flag_global_header(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }
static inline int fx_codec_flag_bitexact(void) { return AV_CODEC_FLAG_BITEXACT; }

/* AVFrame.pkt_duration became AVFrame.duration (lavu 58). */
static inline int64_t fx_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 0, 0)
    return frame->duration;
#else
    return frame->pkt_duration;
#endif
}
static inline void fx_frame_set_duration(AVFrame *frame, int64_t duration) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 0, 0)
    frame->duration = duration;
#else
    frame->pkt_duration = duration;
#endif
}

/* AVFrame.key_frame became AV_FRAME_FLAG_KEY (lavu 58.7). */
static inline int fx_frame_is_key(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame;
#endif
}

/* Stream side data moved to codecpar->coded_side_data (lavc 60.29 / lavf 60.15). */
static inline const uint8_t *fx_stream_side_data(const AVStream *stream, enum AVPacketSideDataType type, size_t *size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                         stream->codecpar->nb_coded_side_data, type);
    if (!sd) { *size = 0; return NULL; }
    *size = sd->size;
    return sd->data;
#else
    return av_stream_get_side_data(stream, type, size);
#endif
}
static inline uint8_t *fx_stream_new_side_data(AVStream *stream, enum AVPacketSideDataType type, size_t size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    AVPacketSideData *sd = av_packet_side_data_new(&stream->codecpar->coded_side_data,
                                                   &stream->codecpar->nb_coded_side_data, type, size, 0);
    return sd ? sd->data : NULL;
#else
    return av_stream_new_side_data(stream, type, size);
#endif
}
/* Copies every stream-level side data entry (rotation, spherical, ...) between streams. */
static inline int fx_stream_copy_side_data(AVStream *dst, const AVStream *src) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    (void)dst; (void)src; /* travels inside codecpar, copied by avcodec_parameters_copy */
    return 0;
#else
    for (int i = 0; i < src->nb_side_data; i++) {
        const AVPacketSideData *sd = &src->side_data[i];
        uint8_t *out = av_stream_new_side_data(dst, sd->type, sd->size);
        if (!out) return AVERROR(ENOMEM);
        memcpy(out, sd->data, sd->size);
    }
    return 0;
#endif
}
/* Drops every display matrix from a stream (rotation is applied to the pixels instead). */
static inline void fx_stream_remove_display_matrix(AVStream *stream) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    av_packet_side_data_remove(stream->codecpar->coded_side_data, &stream->codecpar->nb_coded_side_data,
                               AV_PKT_DATA_DISPLAYMATRIX);
#else
    for (int i = 0; i < stream->nb_side_data; i++) {
        if (stream->side_data[i].type == AV_PKT_DATA_DISPLAYMATRIX) {
            av_freep(&stream->side_data[i].data);
            stream->side_data[i] = stream->side_data[--stream->nb_side_data];
            i--;
        }
    }
#endif
}

/* Channel layouts: AVChannelLayout exists since lavu 57.24 (FFmpeg 5.1); the old
   bitmask fields are gone in 7.0, so only the new API is used. */
static inline int fx_frame_channels(const AVFrame *frame) { return frame->ch_layout.nb_channels; }
static inline int fx_codecpar_channels(const AVCodecParameters *par) { return par->ch_layout.nb_channels; }
static inline void fx_set_default_channel_layout(AVCodecContext *ctx, int channels) {
    av_channel_layout_uninit(&ctx->ch_layout);
    av_channel_layout_default(&ctx->ch_layout, channels);
}
static inline int fx_frame_copy_channel_layout(AVFrame *frame, const AVCodecContext *ctx) {
    return av_channel_layout_copy(&frame->ch_layout, &ctx->ch_layout);
}

/* libavcodec 61 made AVCodec.pix_fmts deprecated in favour of avcodec_get_supported_config (lavc 61.13). */
static inline const enum AVPixelFormat *fx_codec_pix_fmts(const AVCodec *codec) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *configs = NULL; int count = 0;
    if (avcodec_get_supported_config(NULL, codec, AV_CODEC_CONFIG_PIX_FORMAT, 0, &configs, &count) < 0) return NULL;
    return (const enum AVPixelFormat *)configs;
#else
    return codec->pix_fmts;
#endif
}

/* Decoders report many errors only through av_log (a CRC mismatch, a concealed slice) while still
   returning a picture. This callback counts error lines from each decoder into an atomic counter the
   owner puts in AVCodecContext.opaque (frame threading copies opaque to its worker contexts). Lines
   FFmpeg's log level lets through are formatted as FFmpeg's own printer does (av_log_format_line) and
   handed to the library's sink (ReplayLog), never printed here: the library writes nothing to stderr. */
typedef void (*fx_log_sink)(int level, const char *line);
static fx_log_sink fx_log_forward = NULL;
static inline void fx_counting_log_callback(void *object, int level, const char *format, va_list args) {
    if (object && level <= AV_LOG_ERROR) {
        const AVClass *cls = *(const AVClass **)object;
        size_t length = strlen(format);
        int whole_line = length > 0 && format[length - 1] == '\n';
        if (cls && cls->get_category && cls->get_category(object) == AV_CLASS_CATEGORY_DECODER) {
            AVCodecContext *ctx = (AVCodecContext *)object;
            if (ctx->opaque && whole_line) atomic_fetch_add((_Atomic long *)ctx->opaque, 1);
        } else if (cls && cls == avformat_get_class()) {
            /* A demuxer's complaint (a resync past damaged bytes, "Invalid track number") logged on
               this input's AVFormatContext, whose opaque the Demuxer points at its own counter. */
            AVFormatContext *ctx = (AVFormatContext *)object;
            if (ctx->iformat && ctx->opaque && whole_line) atomic_fetch_add((_Atomic long *)ctx->opaque, 1);
        }
    }
    if (level > av_log_get_level() || !fx_log_forward) return;
    char line[1024];
    int print_prefix = 1;
    av_log_format_line(object, level, format, args, line, (int)sizeof line, &print_prefix);
    fx_log_forward(level, line);
}
/* `sink` is set once, before FFmpeg may log. */
static inline void fx_install_counting_log_callback(fx_log_sink sink) {
    fx_log_forward = sink;
    av_log_set_callback(fx_counting_log_callback);
}
static inline long *fx_error_counter_new(void) { return (long *)av_mallocz(sizeof(_Atomic long)); }
static inline long fx_error_counter_read(long *counter) { return atomic_load((_Atomic long *)counter); }

/* Resampling to float planar at `out_rate` with `out_channels` (the default layout for that count).
   swr_alloc_set_opts2 and AVChannelLayout arrived in libswresample 4.5 (FFmpeg 5.1); the old
   bitmask swr_alloc_set_opts is gone in libswresample 5 (FFmpeg 7). An input whose layout is
   unspecified (some decoders give only a count) gets the default layout for its count. */
static inline SwrContext *fx_swr_open(const AVFrame *in, int out_rate, int out_channels) {
    SwrContext *swr = NULL;
#if LIBSWRESAMPLE_VERSION_INT >= AV_VERSION_INT(4, 5, 100)
    AVChannelLayout in_layout, out_layout;
    if (in->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || !av_channel_layout_check(&in->ch_layout))
        av_channel_layout_default(&in_layout, in->ch_layout.nb_channels);
    else if (av_channel_layout_copy(&in_layout, &in->ch_layout) < 0)
        return NULL;
    av_channel_layout_default(&out_layout, out_channels);
    int status = swr_alloc_set_opts2(&swr, &out_layout, AV_SAMPLE_FMT_FLTP, out_rate,
                                     &in_layout, (enum AVSampleFormat)in->format, in->sample_rate, 0, NULL);
    av_channel_layout_uninit(&in_layout);
    av_channel_layout_uninit(&out_layout);
    if (status < 0) { swr_free(&swr); return NULL; }
#else
    swr = swr_alloc_set_opts(NULL, av_get_default_channel_layout(out_channels), AV_SAMPLE_FMT_FLTP, out_rate,
                             av_get_default_channel_layout(in->channels), (enum AVSampleFormat)in->format,
                             in->sample_rate, 0, NULL);
    if (!swr) return NULL;
#endif
    if (swr_init(swr) < 0) { swr_free(&swr); return NULL; }
    return swr;
}
/* Whether `in` has the rate, format and channel count a resampler was opened for. */
static inline int fx_swr_matches(const AVFrame *in, int rate, int format, int channels) {
    return in->sample_rate == rate && in->format == format && in->ch_layout.nb_channels == channels;
}
/* Converts a frame's samples (or, with `in` NULL, flushes what the resampler holds) into float
   planes; returns the samples written per plane. swr_convert's pointer constness differs between
   FFmpeg 5.1 and 7, hence this wrapper. */
static inline int fx_swr_convert(SwrContext *swr, float **out, int out_count, const AVFrame *in) {
    return swr_convert(swr, (uint8_t **)out, out_count,
                       in ? (const uint8_t **)in->extended_data : NULL, in ? in->nb_samples : 0);
}
/* Output samples the next conversion of `in_count` input samples can give (an upper bound). */
static inline int fx_swr_out_samples(SwrContext *swr, int in_count) { return swr_get_out_samples(swr, in_count); }
static inline void fx_swr_free(SwrContext *swr) { swr_free(&swr); }

#endif
