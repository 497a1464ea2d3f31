// The Oracle (OCI) IMDS as `devel serve-metadata --kind oracle` answers it: /opc/v2/ only with `Authorization: Bearer
// Oracle`, as OCI's does.
import type { HttpMockService } from '../mock-service';

/** The header value OCI's IMDS v2 demands; v1 takes no header. */
const V2_AUTHORIZATION = 'Bearer Oracle';

/**
 * The folder is served as it is (`opc/v2/instance`, `opc/v2/vnics`, and `opc/v1/…` only when it has them, so a v2-only
 * or v1-only service is a matter of which folders exist); a v2 request without the header is refused.
 */
export const oracleMock: HttpMockService = {
  kind: 'oracle',
  transport: 'http',
  answers: () => ({
    anyMethod: async (req) =>
      req.path.startsWith('/opc/v2/') && req.headers.authorization !== V2_AUTHORIZATION
        ? { status: 401, body: `${req.path} needs 'Authorization: ${V2_AUTHORIZATION}'\n` }
        : undefined,
  }),
};
