import { Agent, request } from 'node:http';

/** One keep-alive connection pool for every request of the bench to nudge servers. */
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * `POST url` with an optional JSON body over node's own HTTP client and a keep-alive agent: the
 * lean client a producer would use, as the peers are driven through their lean native clients
 * (measured here: about 0.2 ms per round trip at p50, against about 0.4 ms for `fetch`).
 *
 * @returns the parsed JSON body, or `undefined` for an empty one
 * @throws Error when the server answers 300 or more, naming the status and the body
 */
export function postJson(url: string, body?: unknown): Promise<unknown> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers:
          text === undefined
            ? { 'content-length': 0 }
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const answer = Buffer.concat(chunks).toString('utf8');
          if ((response.statusCode ?? 0) >= 300) {
            reject(new Error(`POST ${url} answered ${String(response.statusCode)}: ${answer}`));
          } else {
            resolve(answer === '' ? undefined : JSON.parse(answer));
          }
        });
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
