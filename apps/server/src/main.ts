// The server's entry: `node apps/server/dist/main.js` (the same as `nudge serve`).
import { runService } from './run-service.js';

await runService();
