import { defineCodes } from './define.js';

/** Projects: creation, lookup, slugs. */
export const projectsCodes = defineCodes({
  SVC_PROJECT_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'The project does not exist or is not visible to you.',
    hint: 'Check the id or slug with `svc projects`, or ask an organization owner to add you.',
  },
  SVC_PROJECT_SLUG_INVALID: {
    status: 400,
    retryable: false,
    summary: 'Slugs are 3–40 lowercase ASCII letters, digits and single dashes, not starting or ending with a dash.',
    hint: 'Choose a slug such as my-site (pass it with --slug).',
  },
  SVC_PROJECT_SLUG_RESERVED: {
    status: 400,
    retryable: false,
    summary: 'The slug is reserved by the platform.',
    hint: 'Choose another slug (pass it with --slug).',
  },
  SVC_PROJECT_SLUG_TAKEN: { status: 409, retryable: false, summary: 'Another project uses this slug.', hint: 'Pick another slug.' },
});
