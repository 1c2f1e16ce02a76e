# The nudge service. The full Node image carries python3, make and g++ for better-sqlite3.
FROM node:20-bookworm
WORKDIR /app
# The newest pnpm, as the README's install does (the project pins none; pnpm 11+ reads allowBuilds).
RUN npm install -g pnpm
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build
ENV HOST=0.0.0.0 PORT=3000 NODE_ENV=production
EXPOSE 3000
STOPSIGNAL SIGTERM
CMD ["node", "apps/server/dist/main.js"]
