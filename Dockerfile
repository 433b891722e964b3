# One image for the three application processes; docker-compose.yml picks the command:
#   npm run api      (default)   npm run worker      npm run migrate
# Entry points run TypeScript directly with tsx (a runtime dependency), so there is no build step.
FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# package.json's "allowScripts" (which dependencies may run install scripts) is read by npm 11;
# Node 20 ships npm 10, which would ignore it and run every install script.
ARG NPM_VERSION=11.19.1
RUN npm install --global "npm@${NPM_VERSION}" && npm cache clean --force

WORKDIR /app

# Dependencies first so that source edits do not invalidate this layer.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# Source stays owned by root: the runtime user can read it but not change it.
COPY . .

# DATA_DIR and FILE_STORAGE_DIR live outside /app. Creating them here, owned by the runtime user,
# means a named volume mounted on /var/lib/commerce/files starts out writable by that user.
RUN mkdir -p /var/lib/commerce/files && chown -R node:node /var/lib/commerce
ENV PORT=3000 \
    DATA_DIR=/var/lib/commerce \
    FILE_STORAGE_DIR=/var/lib/commerce/files

# "node" (uid 1000) comes with the base image.
USER node

EXPOSE 3000

# No HEALTHCHECK here: the worker and migrate processes use this image too and have no HTTP port.
# docker-compose.yml gives the api its /readyz check.
CMD ["npm", "run", "api"]
