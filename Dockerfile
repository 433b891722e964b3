# One image for the three application processes, built in two stages; docker-compose.yml picks the command:
#   node dist/api/main.js (default)    node dist/worker/main.js    node dist/db/migrate.js
# No TypeScript runner and no bundler at start: the build stage compiles to dist/ and builds the workflow bundle
# once. scripts/verify-production-build.sh runs the same install, build and start steps without Docker (CI runs it).

# npm 11 wrote package-lock.json; Node 20 ships npm 10. Both stages install with the same npm.
ARG NPM_VERSION=11.19.1

# ---------------------------------------------------------------- build: all dependencies, then `npm run build`
FROM node:20-bookworm-slim AS build
ARG NPM_VERSION
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
RUN npm install --global "npm@${NPM_VERSION}"
WORKDIR /app
# Dependencies first so that source edits do not invalidate this layer. The root postinstall provisions only
# development tools, and only when scripts/provision.sh is present: here, before the sources, it does nothing.
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
# tsc to dist/ (tsconfig.build.json: no test/, no bench/) and dist/workflow-bundle.js.
RUN npm run build

# ---------------------------------------------------------------- runtime: production dependencies and dist/ only
FROM node:20-bookworm-slim
ARG NPM_VERSION
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
RUN npm install --global "npm@${NPM_VERSION}" && npm cache clean --force
WORKDIR /app
COPY package.json package-lock.json ./
# No install script serves production: the ones among the dependencies are the bundler's and compiler's
# (@swc/core, used only by `npm run build`), protobufjs's version notice and @scarf/scarf's telemetry.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
# Compiled code stays owned by root: the runtime user can read it but not change it.
COPY --from=build /app/dist ./dist

# DATA_DIR and FILE_STORAGE_DIR live outside /app. Creating them here, owned by the runtime user,
# means a named volume mounted on /var/lib/commerce/files starts out writable by that user.
RUN mkdir -p /var/lib/commerce/files && chown -R node:node /var/lib/commerce
ENV PORT=3000 \
    WORKER_HEALTH_PORT=3001 \
    DATA_DIR=/var/lib/commerce \
    FILE_STORAGE_DIR=/var/lib/commerce/files

# "node" (uid 1000) comes with the base image.
USER node

# 3000: the api (PORT). 3001: the worker's /healthz and /readyz (WORKER_HEALTH_PORT).
EXPOSE 3000 3001

# The default command's probe: the api's /readyz (PostgreSQL and Temporal answer). docker-compose.yml gives the
# worker its own (/readyz on WORKER_HEALTH_PORT) and turns it off for the one-shot migrate.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

CMD ["node", "dist/api/main.js"]
