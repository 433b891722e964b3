import express, { type Express } from 'express';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import swaggerUi from 'swagger-ui-express';
import { requireDatabaseUrl, type Config } from '../lib/config';
import { createPayloadCodec } from '../lib/payload-codec';
import type { CryptoBox } from '../lib/crypto-box';
import type { Logger } from '../lib/logger';
import { createStorage, type BlobStorage } from '../lib/storage';
import { startNotificationListener, type NotificationListener } from '../db/notification-listener';
import { KEY_CHANGES_CHANNEL, type KeyLookupCache } from '../domain/api-keys';
import { createServices } from '../domain/services';
import { createStarters } from '../domain/workflow-starters';
import { codecEndpoint } from './codec-endpoint';
import { customDomainRewrite } from './middleware/custom-domain';
import { requestDeadline } from './middleware/deadline';
import { errorHandler, routeNotFound } from './middleware/error-handler';
import { httpMetrics } from './middleware/http-metrics';
import { methodNotAllowed, optionsResponder } from './middleware/method-not-allowed';
import { createRateLimits } from './middleware/rate-limit';
import { requestId } from './middleware/request-id';
import { requestLogger } from './middleware/request-logger';
import { docsContentSecurityPolicy, securityHeaders } from './middleware/security-headers';
import { dashboardPages } from './dashboard/router';
import { buildDocument, createRegistry } from './openapi';
import { checkoutPages } from './pages/checkout/router';
import { orderPages } from './pages/order/router';
import { ROUTES } from './routes/registry';
import type { RouteDeps } from './routes/route-deps';
import { temporalIsReachable } from './temporal-client';

export interface AppDeps {
  config: Config;
  sequelize: Sequelize;
  temporal: Client;
  logger: Logger;
  box: CryptoBox;
  /** Product file blobs; default: local disk under FILE_STORAGE_DIR. */
  storage?: BlobStorage;
}

export interface Api {
  app: Express;
  /** Key lookups of this process; live only while `keyListener` is up. */
  keyCache: KeyLookupCache;
  /** The LISTEN connection that keeps `keyCache` honest; null when AUTH_CACHE_TTL is 0s. */
  keyListener: NotificationListener | null;
  /** The OpenAPI document of exactly the routes declared above (served at /api/openapi.json). */
  document: ReturnType<typeof buildDocument>;
  /** Stops the listener; call after the server stopped accepting. */
  close(): Promise<void>;
}

/**
 * Builds the Express app without listening, so tests and server.ts share exactly the same stack. Its one
 * connection of its own is the LISTEN that lets the key lookup cache serve (docs/decisions/auth.md).
 */
export function createApp({ config, sequelize, temporal, logger, box, storage = createStorage(config) }: AppDeps): Api {
  const app = express();
  app.disable('x-powered-by');
  // The client IP (per-IP rate limits) is the socket's unless TRUST_PROXY names how many proxy hops to believe.
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(httpMetrics);
  app.use(securityHeaders);
  app.use(requestId);
  // Ahead of the request log: the dev stack's UI puts the operator token in the path.
  if (config.CODEC_AUTH_TOKEN) {
    app.use('/codec', codecEndpoint({ codec: createPayloadCodec(box.keyRing), token: config.CODEC_AUTH_TOKEN, corsOrigins: config.CODEC_CORS_ORIGIN ?? [], logger }));
  }
  app.use(requestLogger(logger));
  app.use(requestDeadline(config.REQUEST_TIMEOUT));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const [database, temporalUp] = await Promise.all([
      sequelize.query('SELECT 1').then(
        () => true,
        () => false,
      ),
      temporalIsReachable(temporal),
    ]);
    res.status(database && temporalUp ? 200 : 503).json({ status: database && temporalUp ? 'ready' : 'not_ready', database, temporal: temporalUp });
  });

  const starters = createStarters(temporal, { taskQueue: config.TEMPORAL_TASK_QUEUE });
  const services = createServices({ sequelize, config, logger, box, storage, starters, temporal });
  const registry = createRegistry();
  const deps: RouteDeps = {
    sequelize,
    registry,
    apiKeys: services.apiKeys,
    box,
    services,
    rateLimits: createRateLimits(sequelize, {
      perWorkspacePerMinute: config.RATE_LIMIT_PER_MINUTE,
      perIpPerMinute: config.PUBLIC_RATE_LIMIT_PER_MINUTE,
    }),
    methodsByPath: new Map(),
    parseJson: express.json({ limit: config.BODY_LIMIT }),
  };

  const api = express.Router();
  // Declaring the routes fills deps.methodsByPath, which OPTIONS, mounted ahead of them, answers from.
  const routers = ROUTES.map((route) => route(deps));
  api.use(optionsResponder(deps.methodsByPath));
  for (const router of routers) api.use(router);

  const document = buildDocument(registry, `${config.PUBLIC_BASE_URL}/api`);
  api.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  api.use('/docs', docsContentSecurityPolicy(config.PUBLIC_BASE_URL), swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'Commerce Service API' }));
  api.use(methodNotAllowed(deps.methodsByPath));

  app.use(customDomainRewrite(sequelize, new URL(config.PUBLIC_BASE_URL).hostname.toLowerCase()));
  app.use('/api', api);
  // Buyer-facing HTML, outside the JSON API: the hosted checkout page (a session's hostedUrl in local mode).
  app.use('/checkout', checkoutPages({ hostedCheckout: services.hostedCheckout, rateLimits: deps.rateLimits, publicBaseUrl: config.PUBLIC_BASE_URL }));
  // The buyer's order page (document 1's `/order/:deliveryId`), the HTML twin of the public storefront's order route.
  app.use('/order', orderPages({ orderPage: services.orderPage, rateLimits: deps.rateLimits }));
  // The merchant dashboard: server-rendered pages with their own sessions, calling the same services as the API.
  app.use('/dashboard', dashboardPages({ services, sequelize, config }));
  app.use(routeNotFound);
  app.use(errorHandler);

  const keyCache = services.apiKeys.cache;
  const keyListener =
    config.AUTH_CACHE_TTL > 0
      ? startNotificationListener({
          databaseUrl: requireDatabaseUrl(config),
          channel: KEY_CHANGES_CHANNEL,
          applicationName: `commerce-api key-cache ${process.pid}`,
          logger,
          onNotification: (payload) => keyCache.apply(payload),
          onUp: () => keyCache.resume(),
          onDown: () => keyCache.bypass(),
        })
      : null;
  return { app, keyCache, keyListener, document, close: async () => keyListener?.stop() };
}
