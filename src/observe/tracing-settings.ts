/**
 * Whether to trace, read from the standard OpenTelemetry variables without loading any
 * of OpenTelemetry: a server that does not trace pays nothing at start. Off unless an
 * OTLP endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * or OTEL_TRACES_EXPORTER=otlp (the exporter's default endpoint, localhost:4318);
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turns it off whatever else is set.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return false;
  if (exporters.includes('otlp')) return true;
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim());
}
