# tflops_by_phase.gp: rendered by attnlab-report from the newest ok record of every phase under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_by_phase.gp (reads tflops_by_phase.dat, writes tflops_by_phase.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'tflops_by_phase.png'
set title 'TFLOPS by phase, newest ok record of each (headline regime; bars: median, whiskers: p10-p90)' noenhanced
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set datafile missing '?'
set ylabel 'TFLOPS'
set key above noenhanced
set grid ytics lc rgb '#dddddd'
set xtics noenhanced
set logscale y
set yrange [0.1:3000]
set xtics rotate by -30
set xrange [-0.6:12.6]
set xlabel 'phase'
plot 'tflops_by_phase.dat' using 2:3:4:xtic(1) lc rgb '#1f77b4' title 'latency 1x8x512x64', \
     'tflops_by_phase.dat' using 6:7:8 lc rgb '#ff7f0e' title '64x16x512x64', \
     'tflops_by_phase.dat' using 10:11:12 lc rgb '#2ca02c' title '32x16x1024x64', \
     'tflops_by_phase.dat' using 14:15:16 lc rgb '#d62728' title 'throughput 16x16x2048x64', \
     'tflops_by_phase.dat' using 18:19:20 lc rgb '#9467bd' title '8x16x4096x64', \
     'tflops_by_phase.dat' using 22:23:24 lc rgb '#8c564b' title '4x16x8192x64', \
     'tflops_by_phase.dat' using 26:27:28 lc rgb '#e377c2' title '32x16x512x128', \
     'tflops_by_phase.dat' using 30:31:32 lc rgb '#7f7f7f' title '16x16x1024x128', \
     'tflops_by_phase.dat' using 34:35:36 lc rgb '#bcbd22' title '8x16x2048x128', \
     'tflops_by_phase.dat' using 38:39:40 lc rgb '#17becf' title '4x16x4096x128', \
     'tflops_by_phase.dat' using 42:43:44 lc rgb '#aec7e8' title '2x16x8192x128', \
     '' using ($0 + -0.384615385):4:5 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + -0.307692308):8:9 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + -0.230769231):12:13 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + -0.153846154):16:17 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + -0.0769230769):20:21 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + 0):24:25 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + 0.0769230769):28:29 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + 0.153846154):32:33 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + 0.230769231):36:37 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + 0.307692308):40:41 with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
     '' using ($0 + 0.384615385):44:45 with labels rotate by 90 left offset 0,0.6 font ',8' notitle
