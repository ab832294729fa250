#!/usr/bin/python3
"""fxreplay's outputs read by GStreamer (scripts/interop.sh; docs/interop.md).

    gstreamer_matrix.py FXREPLAY WORKDIR

Renders a generated sample call (audio, variable frame rate, pose SEI, mask, annotations) to every
container/codec pair fxreplay writes, with --embed-poses, and with --keep-rotation from a rotated
copy, then reads each output with GStreamer alone (gst_read.py: qtdemux/matroskademux, GStreamer's
parsers, decodebin) and checks, per output:
- no ERROR or WARNING message on the bus, and the demuxer is GStreamer's own;
- every decoded frame's time equals ffprobe's for the output and the input's (formats.md: render
  keeps each frame's presentation time; Matroska stores milliseconds), so the frame rate stays variable,
  and each frame is played (running time) against the first audio sample where ffprobe places it;
- the first audio sample's time equals ffprobe's start of the output's audio;
- the duration gst-discoverer reports equals ffprobe's;
- the rotation: none on upright outputs (their size is the display size), and with --keep-rotation
  the image-orientation tag GStreamer reads from the input, with the picture shown the same way;
- with --embed-poses, each frame's pose SEI as GStreamer's parser splits it equals the sidecar's record.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import ffprobe, ffprobe_frame_times, finish, largest_difference, result, run, stream  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
POSE_UUID = "1618ea8035fe4bd9b1cc01954a32fb00"
# What fxreplay writes (its refusals are checked too): container -> codecs.
WRITES = {"mp4": ["h264", "hevc", "vp9"], "mov": ["h264", "hevc", "prores"],
          "mkv": ["h264", "hevc", "vp9", "vp8", "prores", "ffv1"], "webm": ["vp9", "vp8"]}
CODECS = ["h264", "hevc", "vp9", "vp8", "prores", "ffv1"]
FAST = {"h264": ["--preset", "ultrafast"], "hevc": ["--preset", "ultrafast"], "vp9": ["--preset", "ultrafast"],
        "vp8": ["--preset", "ultrafast"], "prores": ["--preset", "proxy"], "ffv1": []}
# Matroska stores times in milliseconds; MP4/MOV keep the input's time base (GStreamer: nanoseconds).
TIME_TOLERANCE = {"mp4": 1e-6, "mov": 1e-6, "mkv": 0.5e-3, "webm": 0.5e-3}


def gst_read(path, *sei):
    status, out, err = run(["/usr/bin/python3", os.path.join(HERE, "gst_read.py"), path, *sei], timeout=300)
    if status != 0:
        raise RuntimeError(f"gst_read.py {path}: {err.strip()[-400:]}")
    return json.loads(out)


def prepare(fxreplay, work):
    """The sample, an Opus copy (WebM cannot hold AAC) and a copy shown rotated 90°."""
    sample = os.path.join(work, "sample")
    status, _, err = run([fxreplay, "sample", "-o", sample, "--seconds", "2", "--size", "320x180", "--overwrite"])
    if status != 0:
        raise RuntimeError(f"fxreplay sample: {err.strip()}")
    call = os.path.join(sample, "call.mp4")
    opus = os.path.join(sample, "call-opus.mp4")
    rotated = os.path.join(sample, "call-rotated.mp4")
    for arguments in (["-i", call, "-map", "0", "-c:v", "copy", "-c:a", "libopus", "-b:a", "64k", opus],
                      ["-i", call, "-map", "0", "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated]):
        status, _, err = run(["ffmpeg", "-v", "error", "-y", *arguments])
        if status != 0:
            raise RuntimeError(f"ffmpeg {' '.join(arguments)}: {err.strip()}")
    return sample, call, opus, rotated


def render(fxreplay, arguments):
    return run([fxreplay, "render", *arguments, "--overwrite", "--progress", "none"], timeout=600)


def check_output(name, output, container, expected, *, rotated_from=None, kept=False, poses=None, pictures_follow_pre_skip=True):
    """All GStreamer checks of one output against ffprobe's readings and the frame times the contract
    gives it (`expected`: render keeps the input's; compose's frame k is at k / fps). A render's
    pictures move by the Opus pre-skip in Matroska (docs/render.md); compose writes its sound from the first
    sample on, so its pictures stay at k / fps (`pictures_follow_pre_skip=False`)."""
    gst = gst_read(output)
    probe = ffprobe(output)
    problems = gst["errors"] + gst["warnings"] + ([] if gst["discoverer_result"] == "ok" else [gst["discoverer_result"]])
    result(f"{name}: no error or warning on GStreamer's bus", not problems, "; ".join(problems))
    demuxer = "matroskademux" if container in ("mkv", "webm") else "qtdemux"
    result(f"{name}: read by {demuxer}", demuxer in gst["elements"], f"elements {gst['elements']}")

    ffmpeg_times = ffprobe_frame_times(output)
    matroska = container in ("mkv", "webm")
    audio = stream(probe, "audio")
    # docs/render.md, "What render guarantees": FFmpeg 5.1's Matroska muxer moves Opus by its pre-skip
    # against the video (the video's times grow by it, rounded to the millisecond), and FFmpeg
    # reads the audio as starting that much earlier, where GStreamer starts at the first sample heard.
    pre_skip = opus_pre_skip(output) if matroska and audio is not None and audio["codec_name"] == "opus" else 0.0
    expected = [time + (pre_skip if pictures_follow_pre_skip else 0.0) for time in expected]
    shift_note = f"; Opus pre-skip {pre_skip * 1e3:.1f} ms added (docs/interop.md)" if pre_skip else ""
    # A frame's time on the file's timeline: Matroska's block times are the buffers' timestamps
    # (matroskademux counts stream time from the file's first timestamp); MP4's edit list is
    # applied by the segment, so there it is the stream time.
    times = gst["video_pts"] if matroska else gst["video_times"]
    if matroska and video_codec(probe) == "prores" and all(time is None for time in times):
        result(f"{name}: frame times", None, "GStreamer 1.22's matroskademux gives ProRes blocks no timestamps "
               "(ffmpeg's own ProRes .mkv too; docs/interop.md)")
    elif len(times) != len(ffmpeg_times) or len(times) != len(expected) or None in times:
        result(f"{name}: frame times", False,
               f"GStreamer decoded {len(times)} frames ({times.count(None)} without a time), ffprobe {len(ffmpeg_times)}, "
               f"the input has {len(expected)}")
    else:
        against_ffprobe = largest_difference(times, ffmpeg_times)
        against_input = largest_difference(times, expected)
        ok = against_ffprobe <= 1e-6 and against_input <= TIME_TOLERANCE[container] + 1e-6
        result(f"{name}: {len(times)} frame times (VFR) equal ffprobe's and the input's", ok,
               f"largest difference {against_ffprobe * 1e3:.4f} ms from ffprobe, {against_input * 1e3:.4f} ms from "
               f"the input{shift_note}")
        if audio is not None and gst["audio_first_running"] is not None:
            check_sync(name, gst, ffmpeg_times, float(audio["start_time"]) + pre_skip, matroska)

    if audio is None:
        result(f"{name}: audio", gst["audio_first"] is None, "GStreamer found audio that ffprobe does not")
    elif gst["audio_first"] is None:
        result(f"{name}: audio's first sample", False, "GStreamer decoded no audio")
    else:
        start = float(audio["start_time"]) + pre_skip
        first = gst["audio_first_pts"] if matroska else gst["audio_first"]
        result(f"{name}: audio ({audio['codec_name']}) starts at ffprobe's {start:.6f} s",
               abs(first - start) <= (TIME_TOLERANCE[container] if pre_skip else 0) + 1e-6,
               f"GStreamer {first:.6f} s{shift_note}")

    duration = float(probe["format"]["duration"])
    result(f"{name}: duration {duration:.3f} s as ffprobe's", abs(gst["duration"] - duration) <= 1e-3,
           f"gst-discoverer {gst['duration']:.6f} s")

    video = stream(probe, "video")
    if not kept:
        shown = [video["width"], video["height"]]
        result(f"{name}: upright, no rotation tag", gst["orientation"] in (None, "rotate-0") and gst["video_size"] == shown,
               f"orientation {gst['orientation']}, size {gst['video_size']} (ffprobe {shown})")
    else:
        source = gst_read(rotated_from)
        result(f"{name}: rotation tag kept", gst["orientation"] == source["orientation"] and gst["orientation"] is not None,
               f"{gst['orientation']}, the input {source['orientation']}")
        check_shown_alike(name, output, rotated_from)

    if poses is not None:
        codec = "h264" if video["codec_name"] == "h264" else "h265"
        units = gst_read(output, codec, POSE_UUID)
        with open(poses, "rb") as file:
            records = file.read()
        expected_poses = [records[i:i + 32].hex() for i in range(0, len(records), 32)]
        found = [unit[0] if len(unit) == 1 else unit for unit in units]
        result(f"{name}: every frame's pose SEI as GStreamer's {codec}parse splits it equals the sidecar",
               found == expected_poses,
               f"{sum(a == b for a, b in zip(found, expected_poses))} of {len(expected_poses)} equal, {len(found)} access units")


def opus_pre_skip(path):
    """The Opus pre-skip in seconds, from the OpusHead in the file's audio extradata (RFC 7845)."""
    status, out, err = run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_streams", "-show_data",
                            "-of", "json", path])
    dump = json.loads(out)["streams"][0]["extradata"]
    # ffprobe's hexdump lines: "00000000: 4f70 7573 ... (8 groups in 40 columns)  ASCII".
    head = bytes.fromhex("".join(line[10:50].replace(" ", "") for line in dump.strip().splitlines()))
    return int.from_bytes(head[10:12], "little") / 48000


def video_codec(probe):
    return stream(probe, "video")["codec_name"]


def check_sync(name, gst, ffmpeg_times, audio_start, matroska):
    """When GStreamer plays each frame against the first audio sample (running times) as ffprobe places them.

    matroskademux starts its segment at the first block it reads: when the first cluster opens with
    a video frame later than the audio (HEVC with B-frames: its decoding time comes first), that
    frame is played at the audio's start, then the segment moves back. Only that exact shift of
    the first frame is let through, and named.
    """
    expected = [time - audio_start for time in ffmpeg_times]
    played = [time - gst["audio_first_running"] for time in gst["video_running"]]
    tolerance = (0.5e-3 if matroska else 0) + 1e-6
    rest = largest_difference(played[1:], expected[1:])
    first_shift = played[0] - expected[0]
    rebased = matroska and abs(played[0]) <= 1e-6 and abs(first_shift) > tolerance
    ok = rest <= tolerance and (abs(first_shift) <= tolerance or rebased)
    note = (f"; the first frame played {-first_shift * 1e3:.1f} ms early, at the audio's start "
            "(matroskademux's segment starts at the first block; docs/interop.md)") if rebased else ""
    result(f"{name}: frames play in sync with the audio", ok,
           f"largest difference {max(rest, abs(first_shift)) * 1e3:.4f} ms{note}")


def check_shown_alike(name, output, source):
    """GStreamer's picture of the output (videoflip following the tag) against ffmpeg's autorotated input."""
    work = os.path.dirname(output)
    gst_png = output + ".gst.png"
    ffmpeg_png = output + ".ffmpeg.png"
    run(["gst-launch-1.0", "-q", "filesrc", f"location={output}", "!", "decodebin", "!", "videoflip", "video-direction=auto",
         "!", "videoconvert", "!", "pngenc", "snapshot=true", "!", "filesink", f"location={gst_png}"], timeout=120, cwd=work)
    run(["ffmpeg", "-v", "error", "-y", "-i", source, "-frames:v", "1", "-update", "1", ffmpeg_png])
    status, _, err = run(["ffmpeg", "-v", "info", "-i", gst_png, "-i", ffmpeg_png, "-lavfi",
                          "[0]format=gray[a];[1]format=gray[b];[a][b]psnr", "-f", "null", "-"])
    psnr = next((float(part.split(":")[1]) for part in err.split() if part.startswith("average:")), None)
    # The same picture through two decoders and colour conversions: well above 20 dB; turned the
    # wrong way (or not at all: another size, no PSNR) far below.
    result(f"{name}: GStreamer shows it turned as ffmpeg shows the input", psnr is not None and psnr >= 20,
           f"PSNR {psnr} dB")


def main():
    fxreplay, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    sample, call, opus, rotated = prepare(fxreplay, work)
    job = os.path.join(sample, "job.yaml")
    frame_rates = ffprobe_frame_times(call)
    intervals = {round(b - a, 6) for a, b in zip(frame_rates, frame_rates[1:])}
    result("the sample has a variable frame rate", len(intervals) > 3, f"{len(intervals)} distinct frame intervals")

    for container in ["mp4", "mov", "mkv", "webm"]:
        for codec in CODECS:
            name = f"{container}/{codec}"
            source = opus if container == "webm" else call
            output = os.path.join(work, f"{codec}.{container}")
            status, _, err = render(fxreplay, ["--job", job, source, "-o", output, "--codec", codec, *FAST[codec]])
            if codec not in WRITES[container]:
                result(f"{name}: refused as bad usage", status == 2 and "cannot hold" in err, f"exit {status}: {err.strip()}")
                continue
            if status != 0:
                result(f"{name}: render", False, f"exit {status}: {err.strip()}")
                continue
            check_output(name, output, container, ffprobe_frame_times(source))

    # MP4 with VP9 and Opus: what a browser without H.264 plays (see chromium_play.py).
    output = os.path.join(work, "vp9-opus.mp4")
    status, _, err = render(fxreplay, ["--job", job, opus, "-o", output, "--codec", "vp9", *FAST["vp9"]])
    if status != 0:
        result("mp4/vp9+opus: render", False, f"exit {status}: {err.strip()}")
    else:
        check_output("mp4/vp9+opus", output, "mp4", ffprobe_frame_times(opus))

    # --embed-poses: the sidecar's pose32 records written as SEI.
    poses = os.path.join(sample, "call.poses.pose32")
    for container in ["mp4", "mov", "mkv"]:
        for codec in ["h264", "hevc"]:
            name = f"{container}/{codec} --embed-poses"
            output = os.path.join(work, f"embedded-{codec}.{container}")
            status, _, err = render(fxreplay, [call, "-o", output, "--codec", codec, *FAST[codec], "--poses", poses,
                                               "--annotations", os.path.join(sample, "annotations.json"), "--embed-poses"])
            if status != 0:
                result(f"{name}: render", False, f"exit {status}: {err.strip()}")
                continue
            check_output(name, output, container, ffprobe_frame_times(call), poses=poses)

    # A rotated input: upright by default, or its rotation kept (MP4/MOV only).
    for container, codec, keep in [("mp4", "h264", False), ("mkv", "vp9", False), ("mp4", "h264", True),
                                   ("mov", "hevc", True), ("mov", "prores", True), ("mp4", "vp9", True)]:
        name = f"{container}/{codec} rotated input" + (" --keep-rotation" if keep else "")
        output = os.path.join(work, f"rotated-{codec}{'-kept' if keep else ''}.{container}")
        status, _, err = render(fxreplay, [rotated, "-o", output, "--codec", codec, *FAST[codec]]
                                + (["--keep-rotation"] if keep else []))
        if status != 0:
            result(f"{name}: render", False, f"exit {status}: {err.strip()}")
            continue
        check_output(name, output, container, ffprobe_frame_times(rotated), rotated_from=rotated, kept=keep)
    check_compose(fxreplay, work, sample)
    finish()


def check_compose(fxreplay, work, sample):
    """compose's outputs (formats.md §9: frame k at k / fps, 30 by default), once the command exists."""
    # Without the subcommand, `fxreplay compose --help` prints the main help and exits 0.
    status, out, _ = run([fxreplay, "compose", "--help"])
    if status != 0 or "USAGE: fxreplay compose" not in out:
        result("compose outputs", None, "'fxreplay compose' does not exist in this build yet")
        return
    calls = sorted(name for name in os.listdir(sample) if name.endswith(".zip"))
    if not calls:
        result("compose outputs", False, f"fxreplay sample wrote no call archive (.zip) into {sample}")
        return
    for container in ["mp4", "webm"]:
        output = os.path.join(work, f"compose.{container}")
        status, _, err = run([fxreplay, "compose", os.path.join(sample, calls[0]), "-o", output, "--size", "320x180",
                              "--preset", "ultrafast", "--overwrite", "--progress", "none"], timeout=600)
        if status != 0:
            result(f"compose {container}: render", False, f"exit {status}: {err.strip()}")
            continue
        count = len(ffprobe_frame_times(output))
        check_output(f"compose {container}", output, container, [k / 30 for k in range(count)], pictures_follow_pre_skip=False)


if __name__ == "__main__":
    main()
