import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tracingRequested } from './config.js';

describe('tracingRequested: the OTEL_* variables that start the OpenTelemetry SDK', () => {
  it('asks for traces with an exporter or an OTLP endpoint', () => {
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
    assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
    assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' }), true);
  });

  it('does not without them, with the exporter none, blank values or the SDK disabled', () => {
    assert.equal(tracingRequested({}), false);
    assert.equal(
      tracingRequested({ OTEL_SERVICE_NAME: 'nudge', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      false,
    );
    assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'none' }), false);
    assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: ' NONE ' }), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), false);
    assert.equal(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
      false,
    );
  });
});
