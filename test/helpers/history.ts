import { temporal } from '@temporalio/proto';

/** The activity types a history ran as local activities (recorded as `core_local_activity` markers), in order. */
export function localActivityTypes(events: temporal.api.history.v1.IHistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (event.eventType !== temporal.api.enums.v1.EventType.EVENT_TYPE_MARKER_RECORDED || marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details?.data?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string }).activity_type] : [];
  });
}
