-- Starts `nib serve` for C, C++, Python, JavaScript, TypeScript, Go, Rust and Java buffers
-- inside a git repository (Neovim 0.7+). Put this file on your runtimepath and `require("nib")`.
local M = {}

local filetypes = { "c", "cpp", "python", "javascript", "javascriptreact", "typescript", "typescriptreact",
                    "go", "rust", "java" }

function M.attach(bufnr)
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == "" then return end
  local git = vim.fn.finddir(".git", vim.fn.fnamemodify(file, ":p:h") .. ";")
  if git == "" then git = vim.fn.findfile(".git", vim.fn.fnamemodify(file, ":p:h") .. ";") end
  if git == "" then return end
  local root = vim.fn.fnamemodify(git, ":p:h:h")
  local id = vim.lsp.start_client({ name = "nib", cmd = { "nib", "serve" }, root_dir = root })
  if id then vim.lsp.buf_attach_client(bufnr, id) end
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = filetypes,
  callback = function(args) M.attach(args.buf) end,
})

return M
