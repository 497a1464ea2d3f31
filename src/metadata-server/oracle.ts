// The mock Oracle IMDS's request rules: /opc/v2/ answers only with `Authorization: Bearer Oracle`, as OCI's does.
import type { IncomingMessage } from 'node:http';

/** The header value OCI's IMDS v2 demands; v1 takes no header. */
const V2_AUTHORIZATION = 'Bearer Oracle';

/**
 * The refusal for REQ at PATH, or undefined to serve it from the tree (`opc/v2/instance`, `opc/v2/vnics`, and
 * `opc/v1/…` only when the tree has it, so a v2-only or v1-only service is a matter of which folders exist).
 */
export function oracleRequestRules(req: IncomingMessage, path: string): { status: number; body: string } | undefined {
  if (!path.startsWith('/opc/v2/')) return undefined;
  if (req.headers.authorization !== V2_AUTHORIZATION) return { status: 401, body: `${path} needs 'Authorization: ${V2_AUTHORIZATION}'\n` };
  return undefined;
}
