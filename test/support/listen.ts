/**
 * Puts a test HTTP server on a free 127.0.0.1 port and gives the close that every fake server needs:
 * open sockets (a hanging request, a kept-alive connection) are destroyed first, so close never waits.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";

export async function listenLocal(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
