/** Worker-thread entry of {@link CaptureParsePool}: parses capture requests and encodes their events for the log. */
import { parentPort } from 'node:worker_threads';
import { CaptureError, type CaptureRequestParts } from './capture-payload';
import { parseAhead, transferList, type ParseReply } from './parse-pool';

parentPort!.on('message', (m: { id: number; parts: CaptureRequestParts }) => {
  let reply: ParseReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const b = m.parts.body as Uint8Array | undefined;
    const body = b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : undefined;
    const parsed = parseAhead({ ...m.parts, body });
    reply = { id: m.id, ok: true, ...parsed };
    transfer = transferList(parsed);
  } catch (e) {
    reply =
      e instanceof CaptureError
        ? { id: m.id, ok: false, status: e.status, message: e.message }
        : { id: m.id, ok: false, status: 500, message: (e as Error)?.message ?? String(e) };
  }
  parentPort!.postMessage(reply, transfer);
});
