import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty or absent for a root span. */
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** `service.name` of the resource that exported it. */
  readonly service: string;
  readonly events: readonly string[];
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  links?: { traceId: string; spanId: string }[];
  attributes?: OtlpAttribute[];
  status?: { code?: number };
  events?: { name: string }[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const valueOf = (value: OtlpValue): string | number | boolean =>
  value.stringValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.boolValue ??
  value.doubleValue ??
  '';

const attributesOf = (list: readonly OtlpAttribute[] = []): Record<string, string | number | boolean> =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/**
 * A small OTLP/HTTP receiver for `http/json` exports (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`):
 * keeps every span posted to `/v1/traces`, and answers every other signal with an empty success.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts listening on a free port of 127.0.0.1. */
  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces')
          receiver.collect(JSON.parse(Buffer.concat(chunks).toString()) as OtlpExport);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** `http://127.0.0.1:PORT`, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** Keeps the spans of one export. */
  collect(body: OtlpExport): void {
    for (const resource of body.resourceSpans ?? []) {
      const service = String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            kind: span.kind,
            links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
            attributes: attributesOf(span.attributes),
            statusCode: span.status?.code ?? 0,
            service,
            events: (span.events ?? []).map((event) => event.name),
          });
        }
      }
    }
  }
}
