// Create a project in one of your organizations; the slug defaults to one derived from the name.
import { useState } from 'preact/hooks';
import { orgListResponseSchema, identityRoutes } from '../../../src/identity/contract.js';
import { checkProjectSlug, projectResponseSchema, projectRoutes, slugFromName } from '../../../src/projects/contract.js';
import { api } from '../api/client.js';
import { Field, inputValue } from '../components/form-field.js';
import { useTitle } from '../components/layout.js';
import { SelectField } from '../components/select-field.js';
import { ErrorBox } from '../components/status.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';
import { navigate } from '../router.js';

/** /new-project */
export function NewProjectPage() {
  useTitle('New project');
  const orgs = useApi(identityRoutes.orgs, orgListResponseSchema);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [org, setOrg] = useState('');
  const action = useAction();
  const effectiveSlug = slug || slugFromName(name);
  const slugProblem = effectiveSlug ? checkProjectSlug(effectiveSlug) : null;
  const allowed = (orgs.data?.organizations ?? []).filter((o) => o.role !== 'viewer');

  const submit = action.submit(async () => {
    const body = { name: name.trim(), ...(slug ? { slug } : {}), ...(org ? { organizationId: org } : {}) };
    const { project } = await api('POST', projectRoutes.projects, { body, schema: projectResponseSchema });
    navigate(`/projects/${encodeURIComponent(project.slug)}`);
  });

  return (
    <div class="narrow">
      <h1>New project</h1>
      <form onSubmit={submit} class="stack" id="new-project-form">
        <Field id="project-name" label="Name" required maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />
        <Field
          id="project-slug"
          label="Slug"
          placeholder={slugFromName(name) || 'my-site'}
          value={slug}
          onInput={(e) => setSlug(inputValue(e).toLowerCase())}
          hint={
            slugProblem === 'invalid'
              ? '3–40 lowercase letters, digits and single dashes.'
              : slugProblem === 'reserved'
                ? 'This slug is reserved by the platform.'
                : `The app will answer at ${effectiveSlug || '<slug>'}.<platform domain>.`
          }
        />
        {allowed.length > 1 ? (
          <SelectField
            id="project-org"
            label="Organization"
            value={org}
            options={[{ value: '', label: 'Personal (default)' }, ...allowed.map((o) => ({ value: o.id, label: o.name }))]}
            onChange={setOrg}
          />
        ) : null}
        <button id="create-project" type="submit" disabled={action.busy || !name.trim() || slugProblem !== null}>
          {action.busy ? 'Creating…' : 'Create project'}
        </button>
        {action.error ? <ErrorBox error={action.error} /> : null}
      </form>
    </div>
  );
}
