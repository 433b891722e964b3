import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on an ephemeral loopback port speaking the shipping aggregator's API as its public
 * reference documents it (Biteship): `GET /v1/couriers`, `POST /v1/rates/couriers`, `POST /v1/orders`
 * (a repeated `reference_id` is refused naming the existing order), `GET /v1/orders/:id`,
 * `POST /v1/orders/:id/cancel` (refused once picked up), each behind the `authorization` key, with its
 * error shape `{ success: false, error, code }`.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface AggregatorOrder {
  id: string;
  reference_id: string;
  status: string;
  price: number;
  courier: { company: string; type: string; waybill_id: string | null; tracking_id: string; link: string };
}

export interface AggregatorServer {
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  orders: Map<string, AggregatorOrder>;
  /** Makes every answer wait (a slow partner) or fail with a status (a broken one); null restores it. */
  trouble: { delayMs?: number; status?: number } | null;
  /** Whether new orders get their waybill at once (most couriers) or later (by webhook). */
  instantWaybill: boolean;
  close(): Promise<void>;
}

export const AGGREGATOR_COURIERS = [
  { courier_name: 'JNE', courier_code: 'jne', courier_service_name: 'Reguler', courier_service_code: 'reg', description: 'Layanan reguler', service_type: 'standard', shipping_type: 'parcel', shipment_duration_range: '1 - 2', shipment_duration_unit: 'days', available_for_cash_on_delivery: true, available_for_insurance: true },
  { courier_name: 'JNE', courier_code: 'jne', courier_service_name: 'JNE Trucking', courier_service_code: 'jtr', description: 'Trucking', service_type: 'standard', shipping_type: 'freight', shipment_duration_range: '3 - 4', shipment_duration_unit: 'days', available_for_cash_on_delivery: false, available_for_insurance: true },
  { courier_name: 'Gojek', courier_code: 'gojek', courier_service_name: 'Instant', courier_service_code: 'instant', description: 'On demand', service_type: 'instant', shipping_type: 'parcel', shipment_duration_range: '1 - 3', shipment_duration_unit: 'hours', available_for_cash_on_delivery: false, available_for_insurance: false },
  { courier_name: 'Paxel', courier_code: 'paxel', courier_service_name: 'Same Day', courier_service_code: 'sameday', description: 'Same day', service_type: 'same_day', shipping_type: 'parcel', shipment_duration_range: '8 - 12', shipment_duration_unit: 'hours', available_for_cash_on_delivery: false, available_for_insurance: true },
];

const PICKED_UP = ['picked', 'dropping_off', 'delivered', 'returned'];

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const failure = (res: ServerResponse, status: number, error: string, code: number, details?: Record<string, unknown>) =>
  send(res, status, { success: false, error, code, ...(details ? { details } : {}) });

export async function startAggregatorServer(apiKey = 'biteship_test.fake-key'): Promise<AggregatorServer> {
  const requests: RecordedRequest[] = [];
  const orders = new Map<string, AggregatorOrder>();
  let next = 0;
  const state: Pick<AggregatorServer, 'trouble' | 'instantWaybill'> = { trouble: null, instantWaybill: true };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
        const path = req.url ?? '/';
        requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
        if (state.trouble?.delayMs) await new Promise((r) => setTimeout(r, state.trouble!.delayMs));
        if (state.trouble?.status) return failure(res, state.trouble.status, 'Service unavailable', 50000000);
        if (req.headers.authorization !== apiKey) return failure(res, 401, 'Authentication for your key has failed.', 40000001);

        if (req.method === 'GET' && path === '/v1/couriers') return send(res, 200, { success: true, object: 'courier', couriers: AGGREGATOR_COURIERS });

        if (req.method === 'POST' && path === '/v1/rates/couriers') {
          const codes = String(body.couriers ?? '').split(',');
          const items = (body.items as { weight: number; quantity: number }[]) ?? [];
          const grams = items.reduce((s, i) => s + i.weight * i.quantity, 0);
          const pricing = AGGREGATOR_COURIERS.filter((c) => codes.includes(c.courier_code)).map((c, i) => ({
            ...c,
            company: c.courier_code,
            type: c.courier_service_code,
            duration: `${c.shipment_duration_range} ${c.shipment_duration_unit}`,
            price: 10_000 + i * 1_000 + Math.ceil(grams / 1000) * 2_000,
            shipping_fee: 10_000,
            insurance_fee: body.courier_insurance ? 1_500 : 0,
            currency: 'IDR',
          }));
          return send(res, 200, { success: true, object: 'courier_pricing', message: 'Success to retrieve courier pricing', code: 20001003, pricing });
        }

        if (req.method === 'POST' && path === '/v1/orders') {
          const reference = String(body.reference_id);
          const existing = [...orders.values()].find((o) => o.reference_id === reference);
          if (existing) return failure(res, 400, 'Reference id has been used', 40002036, { order_id: existing.id, reference_id: reference });
          if (!AGGREGATOR_COURIERS.some((c) => c.courier_code === body.courier_company && c.courier_service_code === body.courier_type)) {
            return failure(res, 400, 'Courier service is not available', 40002010);
          }
          next += 1;
          const id = `5dd599ebdefcd4158eb8470${next.toString(16)}`;
          const order: AggregatorOrder = {
            id,
            reference_id: reference,
            status: 'confirmed',
            price: 18_000,
            courier: {
              company: String(body.courier_company),
              type: String(body.courier_type),
              waybill_id: state.instantWaybill ? `WYB${String(next).padStart(8, '0')}` : null,
              tracking_id: `trk_${next}`,
              link: `https://track.example.com/${id}`,
            },
          };
          orders.set(id, order);
          return send(res, 200, { success: true, message: 'Order successfully created', object: 'order', currency: 'IDR', ...order });
        }

        const orderPath = /^\/v1\/orders\/([^/]+)(\/cancel)?$/.exec(path);
        const order = orderPath ? orders.get(decodeURIComponent(orderPath[1]!)) : undefined;
        if (orderPath && !order) return failure(res, 404, 'Order not found', 40002001);
        if (order && req.method === 'GET' && !orderPath![2]) return send(res, 200, { success: true, object: 'order', currency: 'IDR', ...order });
        if (order && req.method === 'POST' && orderPath![2]) {
          if (PICKED_UP.includes(order.status)) return failure(res, 400, 'Order can not be cancelled', 40002027);
          order.status = 'cancelled';
          return send(res, 200, { success: true, message: 'Order successfully cancelled', object: 'order', id: order.id, status: 'cancelled', cancellation_reason_code: body.cancellation_reason_code, cancellation_reason: body.cancellation_reason });
        }
        return failure(res, 404, 'Not found', 40400000);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    orders,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
