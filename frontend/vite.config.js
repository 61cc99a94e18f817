import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

// The hub (FastAPI) serves the built app at `/` and the API under `/api`.
// During development, proxy API calls to a locally running hub.
const HUB_DEV_URL = process.env.HUB_DEV_URL || 'http://127.0.0.1:8000'

export default defineConfig({
  plugins: [vue()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  server: {
    proxy: {
      '/api': {
        target: HUB_DEV_URL,
        changeOrigin: true,
      },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.spec.js', 'tests/unit/**/*.spec.js'],
    restoreMocks: true,
  },
})
