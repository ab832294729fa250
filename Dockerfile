# fxreplay for batch and cluster runs.
#   docker build -t fxreplay .
#   docker run --rm -v "$PWD:/data" fxreplay batch '/data/in/*.mp4' --out /data/out
# Build stage: swift.org's official Debian 12 image plus FFmpeg's and FreeType's headers.
# Final stage: Debian 12 with only the runtime libraries (FFmpeg 5.1, FreeType, a font).
ARG SWIFT_VERSION=6.3
FROM swift:${SWIFT_VERSION}-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      pkg-config libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libfreetype-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
# The Swift runtime and Foundation are linked in, so the final stage needs no Swift toolchain.
RUN swift build -c release --product fxreplay --static-swift-stdlib \
 && install -D -m 0755 "$(swift build -c release --show-bin-path)/fxreplay" /out/fxreplay

FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libavformat59 libavcodec59 libavutil57 libswscale6 libfreetype6 fonts-dejavu-core ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 1000 --create-home fxreplay
COPY --from=build /out/fxreplay /usr/local/bin/fxreplay
USER 1000
WORKDIR /data
ENTRYPOINT ["fxreplay"]
CMD ["--help"]
