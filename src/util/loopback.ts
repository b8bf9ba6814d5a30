/**
 * Whether a listen host is reachable from this machine only (shared by `tandem serve` and the
 * app-server's websocket listener, which warn or require a token otherwise).
 *
 * Contract: true for `localhost`, every IPv4 address of 127.0.0.0/8 (`127.0.0.2` too), its
 * IPv4-mapped IPv6 form (`::ffff:127.x.y.z`) and `::1`, with or without brackets, any case;
 * false for everything else (`0.0.0.0`, `::`, LAN addresses, other names).
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return v4 !== null && v4[1] === "127" && v4.slice(2).every((o) => Number(o) <= 255);
}
