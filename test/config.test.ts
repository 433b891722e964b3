import { loadConfig, parseDuration, requireDatabaseUrl, requireEncryptionKey, requireKeyRing, tracingSettings } from '../lib/config';
import { encryptionKeyId } from '../lib/crypto-box';
import { configProblems } from './helpers/config';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 3000, DATA_DIR: './.data', TEMPORAL_NAMESPACE: 'default', PUBLIC_BASE_URL: 'http://localhost:3000', WEBHOOK_ALLOW_PRIVATE_URLS: false });
    expect(config.FILE_STORAGE_DIR).toBe('.data/files');
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000]);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['WORKER_HEALTH_PORT', 'ninety'],
    ['WORKER_HEALTH_PORT', '-1'],
    ['WORKER_MAX_CACHED_WORKFLOWS', '-5'],
    ['WORKER_MAX_CACHED_WORKFLOWS', 'many'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['TEMPORAL_ADDRESS', 'localhost'],
    ['PUBLIC_BASE_URL', 'ftp://example.com'],
    ['SMTP_URL', 'mail.example.com'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'yes'],
    ['WEBHOOK_RETRY_SCHEDULE', '1m,5 minutes'],
    ['FILE_CLEANUP_DELAY', '5 minutes'],
    ['AUTH_CACHE_TTL', '2m'],
    ['ENCRYPTION_KEY', 'too-short'],
    ['LOG_LEVEL', 'loud'],
    ['OTEL_TRACES_EXPORTER', 'jaeger'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
  ])('names %s when it is %j', (name, value) => {
    const found = configProblems({ [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('gives the worker its probe port, 3001 by default (0: a free port), and no workflow bundle unless one is named', () => {
    expect(loadConfig({}).WORKER_HEALTH_PORT).toBe(3001);
    expect(loadConfig({ WORKER_HEALTH_PORT: '0' }).WORKER_HEALTH_PORT).toBe(0);
    expect(loadConfig({}).WORKER_MAX_CACHED_WORKFLOWS).toBe(500);
    expect(loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '0' }).WORKER_MAX_CACHED_WORKFLOWS).toBe(0);
    expect(loadConfig({}).WORKFLOW_BUNDLE_PATH).toBeUndefined();
    expect(loadConfig({ WORKFLOW_BUNDLE_PATH: '/srv/app/dist/workflow-bundle.js' }).WORKFLOW_BUNDLE_PATH).toBe('/srv/app/dist/workflow-bundle.js');
  });

  it('gives the API no metrics listener unless METRICS_PORT names one (0: a free port), never the public port', () => {
    expect(loadConfig({}).METRICS_PORT).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    expect(loadConfig({ METRICS_PORT: '0', PORT: '0' }).METRICS_PORT).toBe(0);
    expect(configProblems({ METRICS_PORT: 'nine' })).toHaveLength(1);
    expect(configProblems({ METRICS_PORT: '3000' })).toEqual(['METRICS_PORT: must differ from PORT (3000): metrics are never served on the public port']);
    expect(configProblems({ METRICS_PORT: '8080', PORT: '8080' })).toEqual(['METRICS_PORT: must differ from PORT (8080): metrics are never served on the public port']);
  });

  it('reports every bad variable at once', () => {
    expect(configProblems({ PORT: 'x', LOG_LEVEL: 'loud' }).map((p) => p.split(':')[0]).sort()).toEqual(['LOG_LEVEL', 'PORT']);
  });

  it('reads FILE_CLEANUP_DELAY as a duration, 5 minutes by default', () => {
    expect(loadConfig({}).FILE_CLEANUP_DELAY).toBe(300_000);
    expect(loadConfig({ FILE_CLEANUP_DELAY: '30s' }).FILE_CLEANUP_DELAY).toBe(30_000);
  });

  it('caps AUTH_CACHE_TTL at 60 s, its default; 0s turns the key cache off', () => {
    expect(loadConfig({}).AUTH_CACHE_TTL).toBe(60_000);
    expect(loadConfig({ AUTH_CACHE_TTL: '0s' }).AUTH_CACHE_TTL).toBe(0);
  });

  it('reads the settlement delays as durations: 2 days in live and 1 minute in test by default, at most 30 days', () => {
    expect(loadConfig({})).toMatchObject({ SETTLEMENT_DELAY: 172_800_000, TEST_SETTLEMENT_DELAY: 60_000 });
    expect(loadConfig({ SETTLEMENT_DELAY: '3d', TEST_SETTLEMENT_DELAY: '0s' })).toMatchObject({ SETTLEMENT_DELAY: 259_200_000, TEST_SETTLEMENT_DELAY: 0 });
    expect(loadConfig({ SETTLEMENT_DELAY: '30d' }).SETTLEMENT_DELAY).toBe(2_592_000_000);
    expect(configProblems({ SETTLEMENT_DELAY: '2 days' })).toEqual(['SETTLEMENT_DELAY: "2 days" is not a duration like 30s, 5m, 2h or 1d']);
    expect(configProblems({ TEST_SETTLEMENT_DELAY: '31d' })).toEqual(['TEST_SETTLEMENT_DELAY: must be at most 30d']);
    expect(configProblems({ TEST_SETTLEMENT_DELAY: '-1m' })).toEqual(['TEST_SETTLEMENT_DELAY: "-1m" is not a duration like 30s, 5m, 2h or 1d']);
  });

  it('sweeps due settlements every 10 seconds by default, from 1 second to 1 hour', () => {
    expect(loadConfig({}).SETTLEMENT_SWEEP_INTERVAL).toBe(10_000);
    expect(loadConfig({ SETTLEMENT_SWEEP_INTERVAL: '1s' }).SETTLEMENT_SWEEP_INTERVAL).toBe(1_000);
    expect(configProblems({ SETTLEMENT_SWEEP_INTERVAL: '0s' })).toEqual(['SETTLEMENT_SWEEP_INTERVAL: must be at least 1s']);
    expect(configProblems({ SETTLEMENT_SWEEP_INTERVAL: '2h' })).toEqual(['SETTLEMENT_SWEEP_INTERVAL: must be at most 1h']);
  });

  it('reads LOCAL_INVOICE_DUE (1 day) and SUBSCRIPTION_RETRY_SCHEDULE (T+1d, T+3d, T+7d) by default; offsets must increase', () => {
    expect(loadConfig({})).toMatchObject({ LOCAL_INVOICE_DUE: 86_400_000, SUBSCRIPTION_RETRY_SCHEDULE: [86_400_000, 259_200_000, 604_800_000] });
    expect(loadConfig({ LOCAL_INVOICE_DUE: '2h', SUBSCRIPTION_RETRY_SCHEDULE: '1h,2h' })).toMatchObject({ LOCAL_INVOICE_DUE: 7_200_000, SUBSCRIPTION_RETRY_SCHEDULE: [3_600_000, 7_200_000] });
    expect(configProblems({ LOCAL_INVOICE_DUE: 'a day' })).toEqual(['LOCAL_INVOICE_DUE: "a day" is not a duration like 30s, 5m, 2h or 1d']);
    expect(configProblems({ LOCAL_INVOICE_DUE: '0s' })).toEqual(['LOCAL_INVOICE_DUE: must be at least 1s']);
    expect(configProblems({ SUBSCRIPTION_RETRY_SCHEDULE: '3d,1d' })).toEqual(['SUBSCRIPTION_RETRY_SCHEDULE: offsets from the failure must increase, e.g. 1d,3d,7d']);
  });

  it('parses the retry schedule units', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '2s,3m,1h,1d' }).WEBHOOK_RETRY_SCHEDULE).toEqual([2_000, 180_000, 3_600_000, 86_400_000]);
    expect(() => parseDuration('5w')).toThrow('5w');
  });

  it('requires DATABASE_URL and ENCRYPTION_KEY where a process cannot run without them', () => {
    const config = loadConfig({});
    expect(() => requireDatabaseUrl(config)).toThrow(/DATABASE_URL/);
    expect(() => requireEncryptionKey(config)).toThrow(/ENCRYPTION_KEY/);
  });

  describe('the key ring: ENCRYPTION_KEY seals, ENCRYPTION_KEYS_RETIRED only open', () => {
    const current = 'a'.repeat(64);
    const retired = 'b'.repeat(64);

    it('builds the ring current first, each key named by its id', () => {
      const ring = requireKeyRing(loadConfig({ ENCRYPTION_KEY: current, ENCRYPTION_KEYS_RETIRED: ` ${retired} ` }));
      expect(ring.current.id).toBe(encryptionKeyId(Buffer.from(current, 'hex')));
      expect(ring.all.map((k) => k.id)).toEqual([current, retired].map((k) => encryptionKeyId(Buffer.from(k, 'hex'))));
      expect(requireKeyRing(loadConfig({ ENCRYPTION_KEY: current })).all).toHaveLength(1);
    });

    it('names each bad retired key, a repeated one, the current one listed, and a list without a current key', () => {
      expect(configProblems({ ENCRYPTION_KEY: current, ENCRYPTION_KEYS_RETIRED: `${retired},short` })).toEqual([
        'ENCRYPTION_KEYS_RETIRED: key 2 of the list must be 32 bytes, as 64 hex characters or base64',
      ]);
      expect(configProblems({ ENCRYPTION_KEY: current, ENCRYPTION_KEYS_RETIRED: `${retired},${retired}` })).toEqual(['ENCRYPTION_KEYS_RETIRED: lists a key twice']);
      expect(configProblems({ ENCRYPTION_KEY: current, ENCRYPTION_KEYS_RETIRED: current })).toEqual([
        'ENCRYPTION_KEYS_RETIRED: lists the current ENCRYPTION_KEY; a key is either current or retired',
      ]);
      expect(configProblems({ ENCRYPTION_KEYS_RETIRED: retired })).toEqual([
        'ENCRYPTION_KEY: required when ENCRYPTION_KEYS_RETIRED is set (the current key seals; retired ones only open)',
      ]);
    });
  });

  it('checks the codec endpoint\'s token and browser origins', () => {
    expect(loadConfig({ CODEC_AUTH_TOKEN: 't'.repeat(32), CODEC_CORS_ORIGIN: 'http://localhost:8233, https://temporal.example.com' }).CODEC_CORS_ORIGIN).toEqual([
      'http://localhost:8233',
      'https://temporal.example.com',
    ]);
    expect(configProblems({ CODEC_AUTH_TOKEN: 'short' })).toEqual(['CODEC_AUTH_TOKEN: must be at least 32 characters (`openssl rand -hex 32`)']);
    expect(configProblems({ CODEC_AUTH_TOKEN: 't'.repeat(32), CODEC_CORS_ORIGIN: 'http://localhost:8233/' })).toEqual([
      'CODEC_CORS_ORIGIN: "http://localhost:8233/" is not an origin like http://localhost:8233 (scheme, host and port, no path or trailing slash)',
    ]);
    expect(configProblems({ CODEC_CORS_ORIGIN: 'http://localhost:8233' })).toEqual([
      'CODEC_AUTH_TOKEN: required when CODEC_CORS_ORIGIN is set (the codec endpoint exists only with its token)',
    ]);
  });

  it('reads the tracing variables on their own: none by default, OTLP over HTTP (protobuf unless json), nothing when one is bad', () => {
    expect(tracingSettings({})).toEqual({ exporter: 'none', endpoint: 'http://localhost:4318', protocol: 'http/protobuf', serviceName: undefined });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'shop-api' }))
      .toEqual({ exporter: 'otlp', endpoint: 'https://otel.example.com', protocol: 'http/json', serviceName: 'shop-api' });
    // loadConfig names the bad one; tracing alone just stays off.
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBeNull();
    expect(configProblems({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual(['OTEL_EXPORTER_OTLP_PROTOCOL: must be http/protobuf or http/json (gRPC is not supported)']);
  });
});
