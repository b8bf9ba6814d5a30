import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listProviderModels } from "./list-models.js";

let close: (() => void) | undefined;
afterEach(() => close?.());

async function server(
  handler: (path: string, auth: string | undefined) => [number, string],
): Promise<string> {
  const s = createServer((req, res) => {
    const [status, body] = handler(req.url ?? "", req.headers.authorization);
    res.writeHead(status, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  close = () => s.close();
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
}

describe("listProviderModels", () => {
  it("reads {data:[{id}]} from GET /models with the key, and undefined for anything else", async () => {
    const seen: Array<string | undefined> = [];
    const url = await server((path, auth) => {
      seen.push(auth);
      if (path === "/v1/models")
        return [200, JSON.stringify({ data: [{ id: "a" }, { id: "b" }, { id: 3 }, {}] })];
      return [404, "{}"];
    });
    expect(await listProviderModels({ baseUrl: `${url}/`, apiKey: "k1" })).toEqual(["a", "b"]);
    expect(seen).toEqual(["Bearer k1"]);
    expect(await listProviderModels({ baseUrl: `${url}/nope` })).toBeUndefined();
  });

  it("is undefined for a body that is not the list, or no server", async () => {
    const url = await server(() => [200, "not json"]);
    expect(await listProviderModels({ baseUrl: url })).toBeUndefined();
    expect(await listProviderModels({ baseUrl: "http://127.0.0.1:1/v1" })).toBeUndefined();
  });
});
