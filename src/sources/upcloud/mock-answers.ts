// The UpCloud metadata service as `devel serve-metadata --kind upcloud` answers it: metadata/v1.json as JSON, and its
// keys as plain-text paths below metadata/v1/.
import type { HttpMockService } from '../mock-service';
import { jsonKeysAnswer } from '../vultr/mock-answers';

/**
 * The folder holds `metadata/v1.json`; `/metadata/v1/KEY[/KEY…]` answers with that part of it (Vultr's JSON-tree rules,
 * one folder down).
 */
export const upCloudMock: HttpMockService = {
  kind: 'upcloud',
  transport: 'http',
  answers: () => ({
    readOnly: async (req) =>
      req.path !== '/metadata/v1.json' && !req.path.startsWith('/metadata/v1/')
        ? undefined
        : jsonKeysAnswer(req.files, req.path.slice('/metadata'.length), 'metadata/'),
  }),
};
