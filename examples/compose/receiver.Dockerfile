# The compose recipe's webhook receiver (examples/compose/receiver) as an
# image. Build it with `make compose-images`, which compiles the static
# binary first: nothing is pulled.
FROM scratch
ARG TARGETARCH=amd64
COPY bin/image/webhook-receiver_linux_${TARGETARCH} /receiver
EXPOSE 8090
USER 65532:65532
ENTRYPOINT ["/receiver"]
