# dbops: one image for every process (API, worker, migrate step, operator commands).
# The build and start steps are scripts/image.sh, which the tests run without a container runtime.
# Node 24 comes from the base image: `npm ci --omit=dev` leaves out the `node` devDependency that
# pins it for development.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
# web/ may not exist yet (HOOK(web) in scripts/image.sh); its node_modules are not needed at run time.
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
# HOOK(web): the web app and its build; an empty directory until web/ exists (scripts/image.sh).
COPY --from=build /app/web ./web
RUN mkdir -p /var/lib/dbops && chown node:node /var/lib/dbops
USER node
EXPOSE 8000
VOLUME ["/var/lib/dbops"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["scripts/image.sh", "health"]
ENTRYPOINT ["scripts/image.sh", "start"]
CMD ["serve"]
