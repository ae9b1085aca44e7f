/** Loopback ports for ClickHouse servers that the tests and the benchmark start themselves (.ci/clickhouse). */
import net from 'node:net';

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A base port with `span` consecutive free ports after it (checked, then used right away). Below Linux's ephemeral
 * range (32768–60999): a port in it could be taken by any outgoing connection of another process between the check
 * and ClickHouse's bind (CI failed once on "Address already in use: 127.0.0.1:33726").
 */
export async function freePorts(span: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20000 + Math.floor(Math.random() * (32700 - span - 20000));
    let ok = true;
    for (let i = 0; i < span && ok; i++) ok = await portFree(base + i);
    if (ok) return base;
  }
  throw new Error('no free loopback ports for ClickHouse');
}
