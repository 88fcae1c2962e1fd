# Alerta's container image (docs/DEPLOY.md):
#   docker build -t alerta .
#   docker run -d -p 127.0.0.1:8080:8080 -v alerta-data:/data --env-file .env alerta
# The bases are build arguments: the official Node 24 slim image by default. BASE builds (CI's
# has compilers, for a native module with no prebuilt binary); RUNTIME_BASE runs, and holds Node
# and nothing that compiles. CI makes both itself, with no registry of images
# (scripts/test-image.sh, which also bounds the image's size).
# Backups: `npm run backup` works in the image for SQLite; it has no PostgreSQL client (pg_dump
# must match the server's version), so PostgreSQL backups go through the database's own
# container (docs/OPERATIONS.md).
ARG BASE=node:24-slim
ARG RUNTIME_BASE=node:24-slim

# npm's registry and certificate authorities, when the build must use others than npm's own
# (CI passes the machine's); never part of the final image, whose stages run no npm install.
FROM ${BASE} AS npm
ARG NPM_REGISTRY=
ARG NPM_CAFILE=
WORKDIR /app
RUN if [ -n "$NPM_REGISTRY" ]; then npm config set --location=global registry "$NPM_REGISTRY"; fi \
 && if [ -n "$NPM_CAFILE" ]; then npm config set --location=global cafile "$NPM_CAFILE"; fi
COPY package.json package-lock.json ./
# A test tool the lock links from the tree (a dev dependency): npm ci reads its package.json.
COPY scripts/openapi-typescript/package.json scripts/openapi-typescript/

# The web app (dist/) and the compiled server (build/), built with the dev dependencies.
FROM npm AS build
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# The runtime dependencies alone: what `npm ci --omit=dev` installs from the same lock, without
# building the native modules a second time. Then what this Node never loads: SQLite's sources
# (each module is built already), better-sqlite3's binaries for other systems, and on Node 22 and
# later the Node 20 build of better-sqlite3 (server/db/sqlite-driver.ts picks by Node's version).
FROM build AS runtime-deps
RUN npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
      node_modules/better-sqlite3-node20/deps node_modules/better-sqlite3-node20/src \
 && find node_modules/better-sqlite3/prebuilds -type f ! -name "$(node -p process.platform)*-$(node -p process.arch).node" -delete \
 && if [ "$(node -p 'Number(process.versions.node.split(".")[0]) >= 22')" = true ]; then rm -rf node_modules/better-sqlite3-node20; fi

FROM ${RUNTIME_BASE}
WORKDIR /app
# DATA_DIR holds the SQLite database and the secrets the server generates when none is set;
# with DATABASE_URL, only those secrets.
ENV HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
RUN groupadd --system alerta \
 && useradd --system --gid alerta --home-dir /data --no-create-home --shell /usr/sbin/nologin alerta \
 && mkdir -p /data \
 && chown alerta:alerta /data \
 && chmod 700 /data
COPY --from=runtime-deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/build build
# `npm start`, `npm run backup` and `npm run restore` work inside the container too.
COPY package.json package-lock.json ./
COPY scripts/start.mjs scripts/backup.mjs scripts/restore.mjs scripts/restore-checks.mjs scripts/data-store.mjs scripts/
USER alerta
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "build/server/index.js"]
