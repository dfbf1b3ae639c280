# Tackle: GitHub App server / worker.
#
# Bubblewrap needs user namespaces, which Docker's default seccomp and AppArmor profiles block. Run with
#   docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined ...
# (or a custom seccomp profile that allows clone/unshare with CLONE_NEWUSER), or set TACKLE_SANDBOX=off
# and accept that agent commands run without isolation. See README.md, "Security model".

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts=false
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends git bubblewrap slirp4netns ripgrep ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
# A non-root user owns the state directory; bubblewrap runs unprivileged through user namespaces.
RUN useradd --create-home --uid 10001 tackle && mkdir -p /data && chown tackle:tackle /data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
USER tackle
ENV NODE_ENV=production TACKLE_HOME=/data PORT=3000
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli.js"]
CMD ["server"]
