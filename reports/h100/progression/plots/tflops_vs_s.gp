# tflops_vs_s.gp: rendered by attnlab-report from the newest ok record of every phase under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_vs_s.gp (reads tflops_vs_s.dat, writes tflops_vs_s.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'tflops_vs_s.png'
set title 'TFLOPS against sequence length S (newest ok record of each phase, headline regime)' noenhanced
set logscale x 2
set xrange [320:3276.8]
set xtics ("512\n1x8x512x64" 512, "2048\n16x16x2048x64" 2048) noenhanced
set xlabel 'sequence length S (tick labels: the shapes BxHxSxD measured there)' offset 0,-1
set bmargin 5
set ylabel 'TFLOPS'
set key outside right top noenhanced
set grid lc rgb '#dddddd'
set logscale y
set yrange [0.1:1000]
plot 'tflops_vs_s.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'phase 1, D=64', \
     'tflops_vs_s.dat' index 1 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#ff7f0e' title 'phase 2, D=64', \
     'tflops_vs_s.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#2ca02c' title 'phase 3a, D=64', \
     'tflops_vs_s.dat' index 3 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#d62728' title 'phase 3b, D=64', \
     'tflops_vs_s.dat' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#9467bd' title 'phase 3c, D=64', \
     'tflops_vs_s.dat' index 5 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#8c564b' title 'phase 4, D=64', \
     'tflops_vs_s.dat' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#e377c2' title 'phase 4x, D=64', \
     'tflops_vs_s.dat' index 7 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#7f7f7f' title 'phase d1, D=64', \
     'tflops_vs_s.dat' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#bcbd22' title 'phase d2, D=64', \
     'tflops_vs_s.dat' index 9 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#17becf' title 'phase d3, D=64', \
     'tflops_vs_s.dat' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#aec7e8' title 'phase sdpa-cudnn, D=64', \
     'tflops_vs_s.dat' index 11 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#ffbb78' title 'phase sdpa-efficient, D=64', \
     'tflops_vs_s.dat' index 12 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#98df8a' title 'phase sdpa-flash, D=64'
