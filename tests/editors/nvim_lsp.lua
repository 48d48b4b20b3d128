-- Drives Neovim's built-in LSP client (0.7+) against `nib serve`: opens a file, waits for the
-- server to initialize, asks for definition and references at a position, and writes the
-- answers as JSON. With NIB_RENAME it then renames the symbol there as a user does
-- (vim.lsp.buf.rename: prepareRename, rename, the edit applied to the buffers) and writes
-- every loaded buffer's lines. Environment: NIB_BIN, NIB_ROOT, NIB_FILE, NIB_LINE, NIB_COL
-- (0-based), NIB_OUT, NIB_RENAME and NIB_METHODS (more methods to ask at the position, comma
-- separated; optional).
local harness = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_harness.lua")
local env, finish = harness.env, harness.finish

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(env("NIB_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "nib",
    cmd = { env("NIB_BIN"), "serve" },
    root_dir = env("NIB_ROOT"),
  })
  assert(client_id, "the client did not start")
  vim.lsp.buf_attach_client(bufnr, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local ready = vim.wait(20000, function()
    return client.server_capabilities ~= nil and next(client.server_capabilities) ~= nil
  end, 20)
  assert(ready, "the server did not initialize")
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = tonumber(env("NIB_LINE")), character = tonumber(env("NIB_COL")) },
  }
  local def = client.request_sync("textDocument/definition", params, 20000, bufnr)
  params.context = { includeDeclaration = true }
  local refs = client.request_sync("textDocument/references", params, 20000, bufnr)
  -- NIB_METHODS: more requests at the same position, their results by method.
  local extra = {}
  for method in (os.getenv("NIB_METHODS") or ""):gmatch("[^,]+") do
    local p = { textDocument = params.textDocument }
    if method == "textDocument/selectionRange" then
      p.positions = { params.position }
    elseif method ~= "textDocument/foldingRange" then
      p.position = params.position
    end
    local r = client.request_sync(method, p, 20000, bufnr)
    extra[method] = r and (r.err and { error = r.err.message } or r.result) or vim.NIL
  end
  local buffers = vim.NIL
  local rename = os.getenv("NIB_RENAME")
  if rename then
    vim.api.nvim_win_set_cursor(0, { params.position.line + 1, params.position.character })
    local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
    vim.lsp.buf.rename(rename)
    local applied = vim.wait(20000, function()
      return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") ~= before
    end, 20)
    assert(applied, "the rename was not applied")
    buffers = {}
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      local name = vim.api.nvim_buf_get_name(b)
      if name ~= "" and vim.api.nvim_buf_is_loaded(b) then
        buffers[vim.fn.fnamemodify(name, ":t")] = vim.api.nvim_buf_get_lines(b, 0, -1, false)
      end
    end
  end
  finish({
    definition = def and def.result or vim.NIL,
    references = refs and refs.result or vim.NIL,
    encoding = client.offset_encoding or vim.NIL,
    buffers = buffers,
    extra = next(extra) and extra or vim.NIL,
  })
end)
if not ok then finish({ error = tostring(err) }) end
