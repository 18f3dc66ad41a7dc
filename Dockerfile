# dbops: one image for every process (API, worker, migrate step, operator commands).
# The build and start steps are scripts/image.sh, which the tests run without a container runtime.
# Node 24 comes from the base image: the production install leaves out the `node` devDependency
# that pins it for development.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
# HOOK(web) in scripts/image.sh: the web app is built here; its sources stay beside the build (the
# server checks the build against their hash).
RUN mkdir -p web && scripts/image.sh build && rm -rf web/node_modules

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/var/lib/dbops
WORKDIR /app
# Only what runs: the sources, production dependencies and (when there is one) the web build.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/src ./src
COPY --from=build /app/scripts ./scripts
# HOOK(web): the web app and its build (web/dist), made by the build stage.
COPY --from=build /app/web ./web
RUN mkdir -p /var/lib/dbops && chown node:node /var/lib/dbops
USER node
EXPOSE 8000
VOLUME ["/var/lib/dbops"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["scripts/image.sh", "health"]
ENTRYPOINT ["scripts/image.sh", "start"]
CMD ["serve"]
