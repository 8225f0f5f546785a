# The voiceagent mock server as a container image. Build it with
# `make image`, which compiles the static binary with the local Go toolchain
# first: this file only copies it into an empty image, so nothing is pulled.
FROM scratch

ARG TARGETARCH=amd64
ARG VERSION=dev
ARG SOURCE=https://github.com/voiceagent/voiceagent-go
ARG REVISION=
ARG LICENSES=MIT

LABEL org.opencontainers.image.title="voiceagent-mock" \
      org.opencontainers.image.description="In-memory mock of the voice-agent platform API, with an admin API for tests" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.url="${SOURCE}" \
      org.opencontainers.image.licenses="${LICENSES}"

COPY bin/image/voiceagent-mock_linux_${TARGETARCH} /voiceagent-mock
# /data is where a state file goes (VOICEAGENT_MOCK_STATE=/data/state.json):
# owned by the server's user, so a volume mounted there is writable.
COPY --chown=65532:65532 bin/image/data/ /data/

# Every interface inside the container: the admin API then requires a
# token, set with VOICEAGENT_MOCK_ADMIN_TOKEN or generated and printed.
ENV VOICEAGENT_MOCK_ADDR=0.0.0.0:8080
EXPOSE 8080
USER 65532:65532

HEALTHCHECK --interval=5s --timeout=3s --start-period=2s --retries=3 \
  CMD ["/voiceagent-mock", "healthcheck"]

ENTRYPOINT ["/voiceagent-mock"]
