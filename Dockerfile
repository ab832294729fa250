# fxreplay for batch and cluster runs, installed from the Debian package that scripts/package.sh builds
# (the release binary with the Swift runtime linked in; apt brings FFmpeg 5.1, FreeType and DejaVu Sans):
#   scripts/package.sh deb && docker build -t fxreplay:0.1.0 -t fxreplay .
#   docker run --rm -v "$PWD:/data" fxreplay batch '/data/in/*.mp4' --out /data/out
FROM debian:12-slim
COPY dist/fxreplay_*_amd64.deb /tmp/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/fxreplay_*_amd64.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/fxreplay_*_amd64.deb \
 && useradd --uid 1000 --create-home fxreplay
USER 1000
WORKDIR /data
ENTRYPOINT ["fxreplay"]
CMD ["--help"]
