# Tackle: GitHub App server / worker.
#
#   docker build -t tackle .
#   docker run ... tackle server                    (webhooks and health checks on $PORT, default 3000)
#   docker run ... tackle worker --port 3000        (health checks on --port; the HEALTHCHECK probes $PORT)
#
# Bubblewrap needs user namespaces, which Docker's default seccomp and AppArmor profiles block. Run with
#   docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined ...
# (or a custom seccomp profile that allows clone/unshare with CLONE_NEWUSER), or set TACKLE_SANDBOX=off
# and accept that agent commands run without isolation. See README.md, "Security model".

# The build: every dependency, since the bundle is made of them.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# What the bundle leaves external (see scripts/build.mjs): the production dependencies only. Bundled
# packages are devDependencies, so they stay out of the image.
FROM node:24-bookworm-slim AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM node:24-bookworm-slim
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="tackle" \
      org.opencontainers.image.description="An open-source AI issue-worker for GitHub: assign an issue, get a draft pull request." \
      org.opencontainers.image.source="https://github.com/tackle-bot/tackle" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}"
# ripgrep from apt is for the agent's own shell (rg on PATH inside the sandbox); the tools use the
# binary @vscode/ripgrep ships in node_modules.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git bubblewrap slirp4netns ripgrep ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
# A non-root user owns the state directory; bubblewrap runs unprivileged through user namespaces.
RUN useradd --create-home --uid 10001 tackle && mkdir -p /data && chown tackle:tackle /data
WORKDIR /app
COPY --from=runtime-deps /app/node_modules ./node_modules
# The CLI and its chunks only: dist/action.js is the Action's, run from a checkout of the repository.
COPY --from=build /app/dist/cli.js ./dist/cli.js
COPY --from=build /app/dist/chunks ./dist/chunks
# The licence travels with every copy of the software (MIT).
COPY package.json app.yml LICENSE ./
USER tackle
ENV NODE_ENV=production TACKLE_HOME=/data PORT=3000
EXPOSE 3000
VOLUME ["/data"]
# Both roles answer /healthz on $PORT: the server always, a worker when started with --port "$PORT"
# (docs/docker-compose.yml does). A worker without --port opens no port and reports unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli.js"]
CMD ["server"]
