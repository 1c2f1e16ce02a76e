# The nudge service. The full Node image carries python3, make and g++ for better-sqlite3.
FROM node:20-bookworm
WORKDIR /app
RUN npm install -g pnpm@10.34.8
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build
ENV HOST=0.0.0.0 PORT=3000 NODE_ENV=production
EXPOSE 3000
STOPSIGNAL SIGTERM
CMD ["node", "apps/server/dist/main.js"]
