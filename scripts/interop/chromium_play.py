#!/usr/bin/python3
"""fxreplay's outputs played by headless Chromium (scripts/interop.sh).

    chromium_play.py WORKDIR NAME=FILE…

Serves WORKDIR on a loopback HTTP server of its own (127.0.0.1, a free port, stopped on exit) and,
for each FILE (relative to WORKDIR), drives Debian's chromium over --remote-debugging-pipe (no
debugging port): a page with a <video> element plays the file to its end; the page's script
hands back what the element reports. Checks: no media error, playback reaches `ended`, `duration`
equals ffprobe's, every frame decoded (totalVideoFrames) and the audio decoded when there is some.
Writes a screenshot of the ended page per file (WORKDIR/NAME.png).
"""
import base64
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import ffprobe, ffprobe_frame_times, ffprobe_times, finish, result, stream  # noqa: E402

PAGE = """<!doctype html><html><body style="margin:0;background:#222;color:#eee;font:14px monospace">
<video id="v" src="{src}" autoplay playsinline style="display:block"></video><pre id="out">playing {src}</pre>
<script>
window.outcome = new Promise(resolve => {{
  const v = document.getElementById('v');
  const report = extra => {{
    const quality = v.getVideoPlaybackQuality();
    const outcome = Object.assign({{duration: v.duration, currentTime: v.currentTime, width: v.videoWidth,
      height: v.videoHeight, frames: quality.totalVideoFrames, dropped: quality.droppedVideoFrames,
      audioBytes: v.webkitAudioDecodedByteCount, error: v.error && (v.error.code + ': ' + v.error.message)}}, extra);
    document.getElementById('out').textContent = JSON.stringify(outcome);
    resolve(outcome);
  }};
  v.addEventListener('ended', () => report({{ended: true}}));
  v.addEventListener('error', () => report({{ended: false}}));
  setTimeout(() => report({{ended: false, timedOut: true}}), 60000);
}});
</script></body></html>"""


class Browser:
    """Chromium driven over the DevTools protocol on file descriptors 3 (commands) and 4 (replies)."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="fxreplay-chromium-")
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()

        def descriptors():
            os.dup2(commands_read, 3)
            os.dup2(replies_write, 4)

        self.process = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--autoplay-policy=no-user-gesture-required", "--no-first-run", "--mute-audio",
             f"--user-data-dir={self.profile}", "--window-size=480,360", "about:blank"],
            preexec_fn=descriptors, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_read)
        os.close(replies_write)
        self.buffer = b""
        self.next_id = 0
        # Events (messages without an id) that arrived while waiting for replies, for callers that
        # enabled a domain (console messages, network requests).
        self.events = []

    def send(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if "id" not in reply:
                self.events.append(reply)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def receive(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.replies, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def play(self, url, screenshot):
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Page.navigate", session, url=url)
        self.send("Runtime.evaluate", session, awaitPromise=True, returnByValue=True,
                  expression="new Promise(r => document.readyState === 'complete' ? r() : addEventListener('load', r))")
        outcome = self.send("Runtime.evaluate", session, expression="window.outcome", awaitPromise=True,
                            returnByValue=True)["result"]["value"]
        picture = self.send("Page.captureScreenshot", session, format="png")["data"]
        with open(screenshot, "wb") as file:
            file.write(base64.b64decode(picture))
        self.send("Target.closeTarget", targetId=target)
        return outcome

    def close(self):
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def last_audio_packet(path):
    """The presentation time of the last audio packet, per ffprobe (None without audio)."""
    return max(ffprobe_times(path, "a:0", "packet"), default=None)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *_):
        pass


def serve(work):
    """Serves the folder `work` on 127.0.0.1 (a free port) from a thread; returns (server, base URL)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=work))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main():
    work = os.path.abspath(sys.argv[1])
    files = dict(argument.split("=", 1) for argument in sys.argv[2:])
    server, base = serve(work)
    browser = Browser()
    try:
        for name, file in files.items():
            page = f"play-{name}.html"
            with open(os.path.join(work, page), "w") as handle:
                handle.write(PAGE.format(src=file))
            probe = ffprobe(os.path.join(work, file))
            duration = float(probe["format"]["duration"])
            frames = len(ffprobe_frame_times(os.path.join(work, file)))
            try:
                outcome = browser.play(f"{base}/{page}", os.path.join(work, f"{name}.png"))
            except RuntimeError as error:
                result(f"chromium {name}: plays", False, str(error))
                continue
            result(f"chromium {name}: plays to the end without a media error",
                   outcome.get("ended") is True and outcome.get("error") is None, json.dumps(outcome))
            shown = outcome.get("duration")
            # Chromium ends an MP4 whose AAC starts late (the sample's 0.978 s, kept by render) at its
            # last audio packet's start, one AAC frame (21.3 ms) before ffprobe's end (docs/interop.md); only
            # that exact value is let through, and named.
            last_audio = last_audio_packet(os.path.join(work, file))
            aac_end = (shown is not None and last_audio is not None and file.endswith(".mp4")
                       and abs(duration - shown) > 1e-3 and abs(shown - last_audio) <= 1e-6)
            result(f"chromium {name}: duration {duration:.3f} s as ffprobe's",
                   shown is not None and (abs(shown - duration) <= 1e-3 or aac_end),
                   f"video.duration {shown}" + (", the last AAC packet's start" if aac_end else ""))
            result(f"chromium {name}: all {frames} frames decoded", outcome.get("frames") == frames,
                   f"totalVideoFrames {outcome.get('frames')}, dropped {outcome.get('dropped')}")
            if stream(probe, "audio") is not None:
                result(f"chromium {name}: audio decoded", (outcome.get("audioBytes") or 0) > 0,
                       f"{outcome.get('audioBytes')} bytes")
    finally:
        browser.close()
        server.shutdown()
    finish()


if __name__ == "__main__":
    main()
