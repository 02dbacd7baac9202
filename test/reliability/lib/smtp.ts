// A minimal SMTP server for tests: in `stall` mode it accepts connections and says
// nothing (a delivery hangs, so its job stays "running"); in `work` mode it speaks just
// enough SMTP for nodemailer and records each message.
import { createServer, type Socket } from 'node:net';

export interface FakeSmtp {
  port: number;
  messages: string[];
  mode: 'stall' | 'work';
  close(): Promise<void>;
}

export async function fakeSmtp(mode: 'stall' | 'work' = 'work'): Promise<FakeSmtp> {
  const sockets = new Set<Socket>();
  const state: FakeSmtp = { port: 0, messages: [], mode, close: async () => {} };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (state.mode === 'stall') return;
    socket.write('220 fake.test ESMTP\r\n');
    let buffer = '';
    let inData = false;
    let message = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      while (true) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          message += buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          state.messages.push(message);
          message = '';
          socket.write('250 OK queued\r\n');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 fake.test\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.write('221 bye\r\n');
          socket.end();
        } else socket.write('250 OK\r\n');
      }
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  state.port = (server.address() as { port: number }).port;
  state.close = () => new Promise<void>((res) => {
    for (const s of sockets) s.destroy();
    server.close(() => res());
  });
  return state;
}
