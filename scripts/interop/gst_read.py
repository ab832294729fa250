#!/usr/bin/python3
"""Reads a media file with GStreamer alone and prints what it found as JSON.

Used by scripts/interop/gstreamer.sh: GStreamer's own demuxers (qtdemux, matroskademux) and
parsers read the file and decodebin decodes every stream; for every decoded video frame and the
first audio buffer we keep the stream time (the buffer's timestamp mapped through its segment,
which is how a player places it: edit lists and Matroska's offsets included), together with the
duration and tags the discoverer reports and every ERROR or WARNING message on the bus.

Runs with Debian's python3 and python3-gi (the GStreamer bindings); prints one JSON object.
"""
import json
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstPbutils", "1.0")
from gi.repository import GLib, Gst, GstPbutils  # noqa: E402

Gst.init(None)


def buffer_times(pad, buffer):
    """A buffer's timestamp, its stream time and its running time, in seconds (None when unset).

    The timestamp is what the demuxer read (Matroska: the block's time; MP4: the media time),
    the stream time places it on the file's timeline as a player's position does (an MP4 edit
    list applied; Matroska counted from the file's first timestamp), and the running time is when
    the pipeline plays it: streams are in sync when their running times are.
    """
    if buffer.pts == Gst.CLOCK_TIME_NONE:
        return None, None, None
    segment = pad.get_sticky_event(Gst.EventType.SEGMENT, 0).parse_segment()
    values = [buffer.pts, segment.to_stream_time(Gst.Format.TIME, buffer.pts),
              segment.to_running_time(Gst.Format.TIME, buffer.pts)]
    return tuple(None if value == Gst.CLOCK_TIME_NONE else value / Gst.SECOND for value in values)


def decode(path):
    """Plays the file through decodebin into fake sinks as fast as possible."""
    result = {"video_pts": [], "video_times": [], "video_running": [], "audio_first": None, "audio_first_pts": None,
              "audio_first_running": None, "audio_buffers": 0, "errors": [], "warnings": [],
              "elements": [], "video_caps": None, "audio_caps": None}
    pipeline = Gst.Pipeline.new("read")
    source = Gst.ElementFactory.make("filesrc")
    source.set_property("location", path)
    decoder = Gst.ElementFactory.make("decodebin")
    pipeline.add(source)
    pipeline.add(decoder)
    source.link(decoder)

    def element_added(_bin, _sub, element):
        factory = element.get_factory()
        if factory is not None:
            result["elements"].append(factory.get_name())

    decoder.connect("deep-element-added", element_added)

    def on_buffer(_sink, buffer, pad, kind):
        pts, time, running = buffer_times(pad, buffer)
        if kind == "video":
            result["video_pts"].append(pts)
            result["video_times"].append(time)
            result["video_running"].append(running)
        else:
            result["audio_buffers"] += 1
            if result["audio_buffers"] == 1:
                result["audio_first"], result["audio_first_pts"], result["audio_first_running"] = time, pts, running

    def pad_added(_decoder, pad):
        caps = pad.get_current_caps() or pad.query_caps(None)
        name = caps.get_structure(0).get_name()
        kind = "video" if name.startswith("video/") else "audio" if name.startswith("audio/") else None
        if kind is None or result[kind + "_caps"] is not None:
            return
        result[kind + "_caps"] = caps.to_string()
        queue = Gst.ElementFactory.make("queue")
        sink = Gst.ElementFactory.make("fakesink")
        sink.set_property("sync", False)
        sink.set_property("signal-handoffs", True)
        sink.connect("handoff", on_buffer, kind)
        pipeline.add(queue)
        pipeline.add(sink)
        queue.link(sink)
        queue.sync_state_with_parent()
        sink.sync_state_with_parent()
        pad.link(queue.get_static_pad("sink"))

    decoder.connect("pad-added", pad_added)
    loop = GLib.MainLoop()

    def on_message(_bus, message):
        if message.type == Gst.MessageType.ERROR:
            error, debug = message.parse_error()
            result["errors"].append(f"{message.src.get_name()}: {error.message} ({debug})")
            loop.quit()
        elif message.type == Gst.MessageType.WARNING:
            warning, debug = message.parse_warning()
            result["warnings"].append(f"{message.src.get_name()}: {warning.message} ({debug})")
        elif message.type == Gst.MessageType.EOS:
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    GLib.timeout_add_seconds(120, lambda: (result["errors"].append("timed out after 120 s"), loop.quit()))
    pipeline.set_state(Gst.State.PLAYING)
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    return result


def discover(path, result):
    """Duration and tags as gst-discoverer-1.0 reports them."""
    discoverer = GstPbutils.Discoverer.new(60 * Gst.SECOND)
    info = discoverer.discover_uri(Gst.filename_to_uri(path))
    result["discoverer_result"] = info.get_result().value_nick
    result["duration"] = info.get_duration() / Gst.SECOND
    orientation = None
    for stream in info.get_video_streams():
        tags = stream.get_tags()
        if tags is not None:
            found, value = tags.get_string("image-orientation")
            if found:
                orientation = value
        result["video_size"] = [stream.get_width(), stream.get_height()]
    result["orientation"] = orientation


def sei_payloads(path, codec, uuid):
    """Per access unit, in presentation order, the payloads of user-data-unregistered SEI with `uuid`.

    GStreamer's parsers (h264parse, h265parse) split the stream into access units in Annex B form;
    the SEI messages are walked here (formats.md §4), since h265parse does not expose user data.
    """
    demuxer = "matroskademux" if path.endswith((".mkv", ".webm")) else "qtdemux"
    caps = f"video/x-{codec},stream-format=byte-stream,alignment=au"
    pipeline = Gst.parse_launch(f"filesrc name=src ! {demuxer} name=d d.video_0 ! {codec}parse ! {caps} ! appsink name=sink sync=false")
    pipeline.get_by_name("src").set_property("location", path)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    units = []
    while (sample := sink.emit("try-pull-sample", 10 * Gst.SECOND)) is not None:
        buffer = sample.get_buffer()
        ok, info = buffer.map(Gst.MapFlags.READ)
        data = bytes(info.data)
        buffer.unmap(info)
        units.append((buffer.pts, [payload.hex() for payload in sei_user_data(data, codec, uuid)]))
    pipeline.set_state(Gst.State.NULL)
    return [payloads for _, payloads in sorted(units, key=lambda unit: unit[0])]


def sei_user_data(data, codec, uuid):
    """User-data-unregistered payloads after `uuid` (at offset 0, or 16 behind libx265's own UUID)."""
    for nal in data.replace(b"\x00\x00\x00\x01", b"\x00\x00\x01").split(b"\x00\x00\x01")[1:]:
        if not nal:
            continue
        kind = nal[0] & 0x1F if codec == "h264" else (nal[0] >> 1) & 0x3F
        if kind not in ((6,) if codec == "h264" else (39, 40)):
            continue
        rbsp = bytearray()
        zeros = 0
        for byte in nal[1 if codec == "h264" else 2:]:
            if zeros >= 2 and byte == 3:
                zeros = 0
                continue
            rbsp.append(byte)
            zeros = zeros + 1 if byte == 0 else 0
        position = 0
        while position + 2 <= len(rbsp) and rbsp[position] != 0x80:
            payload_type = size = 0
            while rbsp[position] == 0xFF:
                payload_type += 255
                position += 1
            payload_type += rbsp[position]
            position += 1
            while rbsp[position] == 0xFF:
                size += 255
                position += 1
            size += rbsp[position]
            position += 1
            message = bytes(rbsp[position:position + size])
            position += size
            if payload_type == 5:
                for offset in (0, 16):
                    if message[offset:offset + 16] == uuid:
                        yield message[offset + 16:]
                        break


if __name__ == "__main__":
    path = sys.argv[1]
    if len(sys.argv) > 2:  # gst_read.py FILE h264|h265 UUID-HEX: pose SEI per access unit
        json.dump(sei_payloads(path, sys.argv[2], bytes.fromhex(sys.argv[3])), sys.stdout)
    else:
        result = decode(path)
        discover(path, result)
        json.dump(result, sys.stdout)
    print()
