# Builds of the mock server beyond `go run`: the container image and the
# release binaries. Both use the local Go toolchain only; nothing is pulled.
#
#   make image   # voiceagent-mock:dev, with docker, or podman where no docker engine answers
#   make dist    # dist/voiceagent-mock_<os>_<arch>[.exe] and dist/checksums.txt
#                # (DIST_PLATFORMS="linux/amd64 windows/arm64" for fewer)
#   make compose-images  # the webhook receiver of examples/compose
#   make clean

GO       ?= go
IMAGE    ?= voiceagent-mock:dev
SOURCE   ?= https://github.com/voiceagent/voiceagent-go
LICENSES ?= MIT
# The container engine: docker when its engine answers, else podman.
ENGINE   ?= $(shell if docker info >/dev/null 2>&1; then echo docker; elif command -v podman >/dev/null 2>&1; then echo podman; else echo none; fi)
# The image's architecture: the Go toolchain's own.
ARCH     ?= $(shell $(GO) env GOARCH)
DIST_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

# A static binary with no local paths; -buildvcs=auto lets go build stamp
# the module version from the git tag (and the commit) into the build
# information, which -version and GET /_mock/health report.
GOBUILD = CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto -ldflags='-s -w'

# version prints the version a built binary ($1) reports: the module
# version go build stamped, or for a build that records none the SDK's
# version with -devel (what the binary says itself).
version = $$($(GO) version -m $(1) | awk '$$1 == "mod" { print $$3 }' | sed "s/^(devel)$$/v$$(sed -n 's/^const Version = "\(.*\)"/\1/p' doc.go)-devel/")

.PHONY: image dist compose-images clean FORCE

bin/image/voiceagent-mock_linux_%: FORCE
	GOOS=linux GOARCH=$* $(GOBUILD) -o $@ ./cmd/voiceagent-mock

image: bin/image/voiceagent-mock_linux_$(ARCH)
	@if [ "$(ENGINE)" = none ]; then echo "make image: neither a docker engine (docker info) nor podman answers" >&2; exit 1; fi
	mkdir -p bin/image/data
	v=$(call version,$<); \
	$(ENGINE) build $(if $(filter podman,$(ENGINE)),--format docker) \
	  --build-arg TARGETARCH=$(ARCH) --build-arg VERSION="$$v" --build-arg SOURCE=$(SOURCE) \
	  --build-arg LICENSES=$(LICENSES) \
	  --build-arg REVISION="$$(git rev-parse HEAD 2>/dev/null)" \
	  -t $(IMAGE) -f Dockerfile .
	@$(ENGINE) image inspect $(IMAGE) --format '$(IMAGE): {{.Size}} bytes'

bin/image/webhook-receiver_linux_%: FORCE
	GOOS=linux GOARCH=$* $(GOBUILD) -o $@ ./examples/compose/receiver

compose-images: bin/image/webhook-receiver_linux_$(ARCH)
	@if [ "$(ENGINE)" = none ]; then echo "make compose-images: neither a docker engine (docker info) nor podman answers" >&2; exit 1; fi
	$(ENGINE) build --build-arg TARGETARCH=$(ARCH) -t voiceagent-webhook-receiver:dev -f examples/compose/receiver.Dockerfile .

dist: FORCE
	rm -rf dist && mkdir -p dist
	for p in $(DIST_PLATFORMS); do \
	  os=$${p%/*} arch=$${p#*/} ext=; [ $$os = windows ] && ext=.exe; \
	  GOOS=$$os GOARCH=$$arch $(GOBUILD) -o dist/voiceagent-mock_$${os}_$${arch}$$ext ./cmd/voiceagent-mock || exit 1; \
	done
	cd dist && sha256sum voiceagent-mock_* > checksums.txt
	@echo "dist: $(DIST_PLATFORMS), version $(call version,$$(ls dist/voiceagent-mock_* | head -n 1))"

clean:
	rm -rf bin dist

FORCE:
