/**
 * A self-contained page (no CDN, nothing to build) that reads `/api/openapi.json` and lists every
 * route with its parameters, body, responses and error codes.
 */
export const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Heed HTTP API</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 960px; padding: 1.5rem; color: #1d1d1f; }
  h1 { margin-bottom: 0; } .lead { color: #555; }
  details { border: 1px solid #ddd; border-radius: 6px; margin: .5rem 0; padding: .4rem .8rem; }
  summary { cursor: pointer; } .method { display: inline-block; min-width: 4.5em; font-weight: 600; text-transform: uppercase; }
  .get { color: #0a7; } .post { color: #06c; } .delete { color: #c33; }
  code, pre { font: 13px/1.4 ui-monospace, monospace; } pre { background: #f6f6f7; padding: .6rem; overflow: auto; border-radius: 4px; }
  h3 { font-size: 1rem; margin: .8rem 0 .2rem; }
</style>
</head>
<body>
<h1>Heed HTTP API</h1>
<p class="lead" id="lead">Loading <a href="/api/openapi.json">/api/openapi.json</a>…</p>
<main id="routes"></main>
<script>
const esc = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const show = (value) => '<pre>' + esc(JSON.stringify(value, null, 2)) + '</pre>';
fetch('/api/openapi.json').then((r) => r.json()).then((doc) => {
  document.getElementById('lead').innerHTML = esc(doc.info.description) + ' <a href="/api/openapi.json">openapi.json</a>';
  const schemas = doc.components.schemas;
  const resolve = (schema) => schema && schema.$ref ? { [schema.$ref.split('/').pop()]: schemas[schema.$ref.split('/').pop()] } : schema;
  let html = '';
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      html += '<details><summary><span class="method ' + method + '">' + method + '</span> <code>' + esc(path) + '</code> — ' + esc(op.summary) + '</summary>';
      if (op.description) html += '<p>' + esc(op.description) + '</p>';
      if (op.parameters) html += '<h3>Parameters</h3>' + show(op.parameters.map((p) => ({ name: p.name, in: p.in, required: p.required, schema: p.schema, description: p.description })));
      if (op.requestBody) html += '<h3>Body</h3>' + show(resolve(op.requestBody.content['application/json'].schema));
      for (const [status, response] of Object.entries(op.responses)) {
        html += '<h3>' + esc(status) + ' — ' + esc(response.description) + '</h3>';
        const json = response.content && response.content['application/json'];
        if (json && !(json.schema.$ref || '').endsWith('/Error')) html += show(resolve(json.schema));
        const events = response.content && response.content['text/event-stream'];
        if (events) html += '<p>Server-Sent Events: ' + esc(events.schema.description) + '</p>';
      }
      html += '</details>';
    }
  }
  html += '<h2>Error body</h2>' + show(schemas.Error);
  document.getElementById('routes').innerHTML = html;
});
</script>
</body>
</html>
`;
